// @ts-check
/** GET /ctrl/api/v1.0/did's essential work, shared by its baseline and its stack floor. */
import { base58 } from '@scure/base';

/** The DID's row of a tenant: one indexed read. */
export const didQuery = 'SELECT did, public_key, created_at FROM tenant_did WHERE tenant_id = $1';
/** The service's prepared statement's way: parsed and planned once per connection. */
export const didStatementName = 'did-of-tenant';
export const tenantIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ed25519Multicodec = Uint8Array.of(0xed, 0x01);

/** The answer's body, as the service writes it. @param {{ did: string, public_key: Buffer, created_at: Date }} row */
export function didAnswer(row) {
  return {
    id: row.did,
    public: true,
    verkey: base58.encode(row.public_key),
    method: 'key',
    keyType: 'ed25519',
    publicKeyMultibase: `z${base58.encode(Buffer.concat([ed25519Multicodec, row.public_key]))}`,
    createdAt: row.created_at.toISOString(),
  };
}
