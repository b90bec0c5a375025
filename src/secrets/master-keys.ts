import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadSettings, type Environment } from '../config/app-config.js';
import { type Settings } from '../config/settings.js';
import { KeyVault } from './key-vault.js';

const masterKeyFileName = 'master.key';

/** The raw keys: held only while the vault is made, and by tests that check what was sealed. */
export interface MasterKeys {
  /** AGENT_MASTER_KEY, or in local mode `DATA_DIR/master.key`. */
  readonly current: Buffer;
  /** AGENT_PREVIOUS_MASTER_KEYS: they open what they sealed, never seal. */
  readonly previous: readonly Buffer[];
}

/** The vault, and what the boot check needs to name a refusal's cause. */
export interface OpenedVault {
  readonly vault: KeyVault;
  /**
   * Local mode with AGENT_MASTER_KEY set: the key in `DATA_DIR/master.key` that the variable replaces,
   * by id only, so that the boot check can say when it is the one the stored values need.
   */
  readonly replacedLocalKey?: { file: string; masterKeyId: string };
}

/**
 * The master keys from the validated settings: AGENT_MASTER_KEY or, in local mode, `DATA_DIR/master.key`,
 * which is made once (0600) on the first start; then AGENT_PREVIOUS_MASTER_KEYS. The only reader of the
 * key material: the configuration every other part gets (AppConfig) holds none of it.
 */
export function readMasterKeys(env: Environment = process.env): MasterKeys {
  return keysOf(loadSettings(env));
}

/** The application's one KeyVault, made from the keys `readMasterKeys` reads; they go nowhere else. */
export function openKeyVault(env: Environment = process.env): OpenedVault {
  const settings = loadSettings(env);
  const { current, previous } = keysOf(settings);
  // The vault keeps copies: these are wiped so that only the vault holds the keys.
  const vault = new KeyVault(current, previous);
  for (const key of [current, ...previous]) key.fill(0);
  if (settings.AGENT_MASTER_KEY === undefined) return { vault };
  const local = localMasterKeyFile(resolve(settings.DATA_DIR));
  if (local === undefined) return { vault };
  const masterKeyId = new KeyVault(local.key).masterKeyId;
  local.key.fill(0);
  return { vault, replacedLocalKey: { file: local.file, masterKeyId } };
}

function keysOf(settings: Settings): MasterKeys {
  const previous = (settings.AGENT_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .map((encoded) => encoded.trim())
    .filter((encoded) => encoded !== '')
    .map((encoded) => decodeMasterKey(encoded, 'AGENT_PREVIOUS_MASTER_KEYS'));
  const current =
    settings.AGENT_MASTER_KEY === undefined
      ? localMasterKey(resolve(settings.DATA_DIR))
      : decodeMasterKey(settings.AGENT_MASTER_KEY, 'AGENT_MASTER_KEY');
  checkPreviousMasterKeys(current, previous);
  return { current, previous };
}

/** `DATA_DIR/master.key` when local mode made one, read without making it. */
function localMasterKeyFile(dataDir: string): { file: string; key: Buffer } | undefined {
  const file = join(dataDir, masterKeyFileName);
  if (!existsSync(file)) return undefined;
  return { file, key: decodeMasterKey(readFileSync(file, 'utf8').trim(), file) };
}

/** Local mode's key in `DATA_DIR/master.key`, made once (0600) on the first start. */
function localMasterKey(dataDir: string): Buffer {
  const file = join(dataDir, masterKeyFileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      // 'wx' fails if another process created the file in the meantime; then we read theirs.
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  return decodeMasterKey(readFileSync(file, 'utf8').trim(), `${file} (the local master key)`);
}

function decodeMasterKey(encoded: string, source: string): Buffer {
  const key = /^[A-Za-z0-9+/]{43}=?$/.test(encoded)
    ? Buffer.from(encoded, 'base64')
    : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError(
      source,
      "must be 32 random bytes in base64 (make one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\")",
    );
  }
  return key;
}

/**
 * A key is either current or previous, and listed once: the vault picks a key by its id, so a duplicate
 * would only hide a mistake (such as forgetting to change AGENT_MASTER_KEY).
 */
function checkPreviousMasterKeys(current: Buffer, previous: readonly Buffer[]): void {
  previous.forEach((key, index) => {
    if (key.equals(current)) {
      throw new ConfigError(
        'AGENT_PREVIOUS_MASTER_KEYS',
        `its key number ${index + 1} is the current master key; a key is either current (AGENT_MASTER_KEY) or previous`,
      );
    }
    if (previous.findIndex((other) => other.equals(key)) < index) {
      throw new ConfigError(
        'AGENT_PREVIOUS_MASTER_KEYS',
        `its key number ${index + 1} is listed twice; list each earlier key once`,
      );
    }
  });
}
