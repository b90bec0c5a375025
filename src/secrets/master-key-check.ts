import { Logger } from '@nestjs/common';
import { ConfigError } from '../config/load-settings.js';
import { type KeyVault } from './key-vault.js';
import { type OpenedVault } from './master-keys.js';
import { countByKeyId, labelOf, type KeyIdCount } from './sealed-columns.js';

export interface MasterKeyCheckOptions {
  /** Key ids the operator declared lost for good (AGENT_LOST_MASTER_KEY_IDS): start without them. */
  lostKeyIds: readonly string[];
  /** So that the refusal can name the local key file when it holds the key the stored values need. */
  replacedLocalKey?: OpenedVault['replacedLocalKey'];
}

/**
 * Before the service serves anything: every stored sealed value, in every registered column, must name a master key this instance
 * has (docs/operations.md, Rotating the master key). Otherwise its tenant could not sign, and every
 * such request would answer 503 behind a ready probe: the start is refused with the cause and the fix,
 * unless the operator declared that key lost. Also says whether `npm run keys:rewrap` is still to run.
 */
export async function checkStoredMasterKeys(
  query: <Row>(sql: string) => Promise<Row[]>,
  vault: KeyVault,
  options: MasterKeyCheckOptions,
): Promise<void> {
  const logger = new Logger('MasterKeys');
  const counts = await countByKeyId(query);
  const unknown = counts.filter(
    (entry): entry is KeyIdCount & { keyId: string } =>
      entry.keyId !== null && !vault.has(entry.keyId),
  );
  const refused = unknown.filter((entry) => !options.lostKeyIds.includes(entry.keyId));
  if (refused.length > 0) throw refusal(refused, options);
  for (const { column, keyId, count } of unknown) {
    logger.warn({
      msg: `${count} sealed values in ${labelOf(column)} name master key ${keyId}, declared lost in AGENT_LOST_MASTER_KEY_IDS: their tenants cannot sign`,
      event: 'master-key.unknown',
      masterKeyId: keyId,
      column: labelOf(column),
      count,
    });
  }
  const previous = counts
    .filter((entry) => entry.keyId !== null && vault.previousMasterKeyIds.includes(entry.keyId))
    .reduce((sum, entry) => sum + entry.count, 0);
  if (previous > 0) {
    logger.log({
      msg: `${previous} sealed values are under previous master keys: run npm run keys:rewrap, then empty AGENT_PREVIOUS_MASTER_KEYS`,
      event: 'master-key.previous-in-use',
      count: previous,
    });
  } else if (vault.previousMasterKeyIds.length > 0) {
    logger.log({
      msg: 'No sealed value is under a previous master key: AGENT_PREVIOUS_MASTER_KEYS can be emptied',
      event: 'master-key.previous-unused',
    });
  }
}

/** The refusal: what is stored under which missing key, and what to change. Names no key, only ids. */
function refusal(
  refused: readonly (KeyIdCount & { keyId: string })[],
  options: MasterKeyCheckOptions,
): ConfigError {
  const ids = [...new Set(refused.map((entry) => entry.keyId))];
  const stored = ids
    .map((id) => {
      const columns = refused
        .filter((entry) => entry.keyId === id)
        .map((entry) => `${entry.count} in ${labelOf(entry.column)}`);
      return `master key ${id} (${columns.join(', ')})`;
    })
    .join('; ');
  const cause = `stored values are sealed under ${stored}, which this service is not configured with, so their tenants could not sign`;
  const local = options.replacedLocalKey;
  if (local !== undefined && ids.includes(local.masterKeyId)) {
    return new ConfigError(
      'AGENT_MASTER_KEY',
      `${cause}. They were sealed under the local master key ${local.file}, which AGENT_MASTER_KEY ` +
        '(set in the environment or in .env) replaces: unset AGENT_MASTER_KEY to use that file ' +
        '(docker-compose reads its own compose.env), or rotate to the new key as docs/operations.md ' +
        '(Rotating the master key) says.',
    );
  }
  return new ConfigError(
    'AGENT_MASTER_KEY',
    `${cause}. Set AGENT_MASTER_KEY to the key that sealed them, or list it in ` +
      'AGENT_PREVIOUS_MASTER_KEYS and run npm run keys:rewrap (docs/operations.md, Rotating the ' +
      'master key). Only if that key is lost for good: list its id in AGENT_LOST_MASTER_KEY_IDS, and ' +
      'the service starts without those tenants’ signatures.',
  );
}
