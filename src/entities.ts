import { certificateEntities } from './certificates/certificates.module.js';
import { credentialEntities } from './credentials/credentials.module.js';
import { didEntities } from './did/did.module.js';
import { idempotencyEntities } from './idempotency/idempotency.module.js';
import { issuerEntities } from './issuer/issuer.module.js';
import { oid4vciEntities } from './oid4vci/oid4vci.module.js';
import { oid4vpEntities } from './oid4vp/oid4vp.module.js';
import { tenantEntities } from './tenants/tenants.module.js';
import { trustedIssuerEntities } from './trusted-issuers/trusted-issuers.module.js';
import { trustAnchorEntities } from './trust-anchors/trust-anchors.module.js';
import { walletProviderEntities } from './wallet-providers/wallet-providers.module.js';
import { webhookEntities } from './webhooks/webhooks.module.js';

/**
 * Every feature's tables, for what runs outside Nest: the migration CLI's generate, the rewrap CLI and
 * the schema test. The app loads the same classes from each module's TypeOrmModule.forFeature
 * (autoLoadEntities); test/entities.e2e-spec.ts keeps the two equal.
 */
export const entities = [
  ...tenantEntities,
  ...didEntities,
  ...certificateEntities,
  ...issuerEntities,
  ...credentialEntities,
  ...webhookEntities,
  ...idempotencyEntities,
  ...trustedIssuerEntities,
  ...trustAnchorEntities,
  ...walletProviderEntities,
  ...oid4vciEntities,
  ...oid4vpEntities,
];
