import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadSettings } from '../config/load-settings.js';
import { KeyVault } from './key-vault.js';
import { openKeyVault, readMasterKeys } from './master-keys.js';

const masterKey = randomBytes(32).toString('base64');

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'agent-master-keys-'));
}

describe(readMasterKeys.name, () => {
  it('generates the local master key once, readable only by its owner', () => {
    const directory = dataDir();
    const first = readMasterKeys({ DATA_DIR: directory }).current;
    const second = readMasterKeys({ DATA_DIR: directory }).current;
    expect(first).toHaveLength(32);
    expect(second.equals(first)).toBe(true);
    const file = join(directory, 'master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
  });

  it('prefers AGENT_MASTER_KEY and writes no key file then', () => {
    const directory = dataDir();
    const keys = readMasterKeys({ DATA_DIR: directory, AGENT_MASTER_KEY: masterKey });
    expect(keys.current.toString('base64')).toBe(masterKey);
    expect(() => statSync(join(directory, 'master.key'))).toThrow();
  });

  describe('AGENT_PREVIOUS_MASTER_KEYS', () => {
    const earlier = randomBytes(32).toString('base64');
    const earliest = randomBytes(32).toString('base64');

    it('reads earlier keys that open but do not seal, none when unset', () => {
      const keys = readMasterKeys({
        DATA_DIR: dataDir(),
        AGENT_MASTER_KEY: masterKey,
        AGENT_PREVIOUS_MASTER_KEYS: ` ${earlier} , ${earliest}`,
      });
      expect(keys.previous.map((key) => key.toString('base64'))).toEqual([earlier, earliest]);
      expect(readMasterKeys({ DATA_DIR: dataDir() }).previous).toEqual([]);
    });

    it.each([
      ['a key that is not base64 of 32 bytes', () => `${earlier},short`],
      ['a key of 16 bytes', () => randomBytes(16).toString('base64')],
      ['an empty entry', () => `${earlier},,${earliest}`],
      ['the same key twice', () => `${earlier},${earliest},${earlier}`],
      ['the current key', () => `${earlier},${masterKey}`],
    ])('stops on %s, naming the variable and echoing no key', (_case, value) => {
      const given = value();
      let caught: unknown;
      try {
        readMasterKeys({
          DATA_DIR: dataDir(),
          AGENT_MASTER_KEY: masterKey,
          AGENT_PREVIOUS_MASTER_KEYS: given,
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe('AGENT_PREVIOUS_MASTER_KEYS');
      for (const key of [masterKey, earlier, earliest]) {
        expect((caught as Error).message).not.toContain(key);
        expect((caught as Error).message).not.toContain(key.slice(0, 20));
      }
    });

    it('refuses the local master key listed as a previous key', () => {
      const directory = dataDir();
      const local = readMasterKeys({ DATA_DIR: directory }).current.toString('base64');
      const env = { DATA_DIR: directory, AGENT_PREVIOUS_MASTER_KEYS: local };
      expect(() => readMasterKeys(env)).toThrow(ConfigError);
      expect(() => readMasterKeys(env)).toThrow('AGENT_PREVIOUS_MASTER_KEYS');
    });
  });
});

describe('the configuration every consumer gets', () => {
  /** Every form a key could be written in: its bytes as base64, base64url, hex, and as numbers. */
  function forms(key: Buffer): string[] {
    return [
      key.toString('base64'),
      key.toString('base64url'),
      key.toString('hex'),
      JSON.stringify([...key]).slice(1, -1),
    ];
  }

  function expectNoKeyIn(value: unknown, keys: Buffer[]): void {
    const serialized = JSON.stringify(value);
    for (const key of keys) {
      for (const form of forms(key)) expect(serialized).not.toContain(form);
    }
    // No Buffer at any depth either (a Buffer serializes as its bytes, which the forms above cover).
    expect(serialized).not.toContain('"type":"Buffer"');
  }

  it('holds no master key, current or previous, from the environment', () => {
    const previous = randomBytes(32).toString('base64');
    const env = {
      DATA_DIR: dataDir(),
      AGENT_MASTER_KEY: masterKey,
      AGENT_PREVIOUS_MASTER_KEYS: previous,
    };
    const settings = loadSettings(env);
    expectNoKeyIn(settings, [Buffer.from(masterKey, 'base64'), Buffer.from(previous, 'base64')]);
    // The vault made from the same environment has them: the test would see a key that leaked.
    const { vault } = openKeyVault(env);
    expect(vault.masterKeyId).toBe(new KeyVault(Buffer.from(masterKey, 'base64')).masterKeyId);
    expect(vault.previousMasterKeyIds).toEqual([
      new KeyVault(Buffer.from(previous, 'base64')).masterKeyId,
    ]);
  });

  it('holds no local master key from DATA_DIR', () => {
    const directory = dataDir();
    const local = readMasterKeys({ DATA_DIR: directory }).current;
    expectNoKeyIn(loadSettings({ DATA_DIR: directory }), [local]);
  });
});
