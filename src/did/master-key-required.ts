import { type Logger } from '@nestjs/common';
import { type KeyVault } from '../secrets/key-vault.js';
import { masterKeyUnavailable } from '../secrets/master-key.errors.js';

/**
 * Refuses a tenant's key sealed under a master key this instance was not given, before it signs: a 503
 * for the caller (another instance may have the key) and, for the operator, a log line naming it.
 */
export function requireMasterKey(
  vault: KeyVault,
  logger: Logger,
  key: { tenantId: string; name: string; masterKeyId: string; ids: Record<string, string> },
): void {
  const { tenantId, name, masterKeyId, ids } = key;
  if (vault.has(masterKeyId)) return;
  logger.error({
    msg: `Tenant ${tenantId}'s ${name} is sealed under master key ${masterKeyId}, which this instance does not have: add it to AGENT_PREVIOUS_MASTER_KEYS`,
    event: 'master-key.unknown',
    tenantId,
    ...ids,
    masterKeyId,
  });
  throw masterKeyUnavailable();
}
