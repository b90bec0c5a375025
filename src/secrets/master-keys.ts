import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOrCreateFile } from '../common/create-file-once.js';
import {
  ConfigError,
  loadMasterKeySettings,
  loadSettings,
  type Environment,
} from '../config/load-settings.js';
import { type MasterKeySettings } from '../config/settings.js';
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
 * The master keys from the validated environment: AGENT_MASTER_KEY or, in local mode,
 * `DATA_DIR/master.key`, which is made once (0600) on the first start; then AGENT_PREVIOUS_MASTER_KEYS.
 * The only reader of the key material: the settings every other part gets (Settings) hold none of it.
 */
export function readMasterKeys(env: Environment = process.env): MasterKeys {
  return keysOf(loadSettings(env).DATA_DIR, loadMasterKeySettings(env));
}

/** The application's one KeyVault, made from the keys `readMasterKeys` reads; they go nowhere else. */
export function openKeyVault(env: Environment = process.env): OpenedVault {
  // loadSettings validates the whole environment, the keys included, as the start does.
  const { DATA_DIR } = loadSettings(env);
  const keys = loadMasterKeySettings(env);
  const { current, previous } = keysOf(DATA_DIR, keys);
  // The vault keeps copies: these are wiped so that only the vault holds the keys.
  const vault = new KeyVault(current, previous);
  for (const key of [current, ...previous]) key.fill(0);
  if (keys.AGENT_MASTER_KEY === undefined) return { vault };
  const local = localMasterKeyFile(DATA_DIR);
  if (local === undefined) return { vault };
  const masterKeyId = new KeyVault(local.key).masterKeyId;
  local.key.fill(0);
  return { vault, replacedLocalKey: { file: local.file, masterKeyId } };
}

function keysOf(dataDir: string, keys: MasterKeySettings): MasterKeys {
  const previous = keys.AGENT_PREVIOUS_MASTER_KEYS.map((encoded) =>
    decodeMasterKey(encoded, 'AGENT_PREVIOUS_MASTER_KEYS'),
  );
  const current =
    keys.AGENT_MASTER_KEY === undefined
      ? localMasterKey(dataDir)
      : decodeMasterKey(keys.AGENT_MASTER_KEY, 'AGENT_MASTER_KEY');
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
  mkdirSync(dataDir, { recursive: true });
  const encoded = readOrCreateFile(file, () => `${randomBytes(32).toString('base64')}\n`);
  return decodeMasterKey(encoded.trim(), `${file} (the local master key)`);
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
