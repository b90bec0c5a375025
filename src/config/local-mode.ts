import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPreviousMasterKeys, decodeMasterKey, type AppConfig } from './app-config.js';

const masterKeyFileName = 'master.key';

/** `DATA_DIR/master.key` when local mode made one, read without making it. */
export function localMasterKeyFile(config: AppConfig): { file: string; key: Buffer } | undefined {
  const file = join(config.dataDir, masterKeyFileName);
  if (!existsSync(file)) return undefined;
  return { file, key: decodeMasterKey(readFileSync(file, 'utf8').trim(), file) };
}

/**
 * The master key, from the environment or, in local mode, from `DATA_DIR/master.key`, which is made
 * once (0600) on the first start.
 */
export function masterKeyOf(config: AppConfig): Buffer {
  if (config.masterKey !== undefined) return config.masterKey;
  const file = join(config.dataDir, masterKeyFileName);
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      // 'wx' fails if another process created the file in the meantime; then we read theirs.
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  const key = decodeMasterKey(readFileSync(file, 'utf8').trim(), `${file} (the local master key)`);
  checkPreviousMasterKeys(key, config.previousMasterKeys);
  return key;
}
