import { randomBytes } from 'node:crypto';
import { KeyVault } from '../../secrets/key-vault.js';
import { type PresentationRequestEntity } from './presentation-request.entity.js';
import { type PresentationRequestRepository } from './presentation-request.repository.js';
import { requestSecretsPurpose } from './presentation-request.sealed-columns.js';
import { WalletRequests } from './wallet-requests.js';

/** Which requests the wallet's endpoints reach by reference: never one of the DC API. */
describe(WalletRequests.name, () => {
  const vault = new KeyVault(randomBytes(32));
  const reference = randomBytes(32).toString('base64url');
  const rowOf = (responseMode: PresentationRequestEntity['responseMode']) =>
    ({
      id: 'r',
      tenantId: 'acme',
      status: 'pending',
      responseMode,
      expiresAt: new Date(Date.now() + 60_000),
      secretsSealed: vault.seal(
        'acme',
        Buffer.from(JSON.stringify({ reference })),
        requestSecretsPurpose,
      ),
      masterKeyId: vault.masterKeyId,
    }) as PresentationRequestEntity;
  const trust = { issuers: ['https://issuer.example'], anchors: [] };
  const requestsOf = (row: PresentationRequestEntity) =>
    new WalletRequests(
      {
        findByReference: () => Promise.resolve(row),
        findByReferenceWithTrust: () => Promise.resolve({ request: row, trust }),
      } as unknown as PresentationRequestRepository,
      vault,
      () => Date.now(),
    );

  it('finds a pending redirect request by its reference, with its tenant’s trust for an answer', async () => {
    const requests = requestsOf(rowOf('direct_post.jwt'));
    const open = await requests.findOpen('acme', reference);
    expect(open?.secrets.reference).toBe(reference);
    const answered = await requests.findOpenToAnswer('acme', reference);
    expect(answered?.secrets.reference).toBe(reference);
    expect(answered?.trust).toBe(trust);
  });

  it.each(['dc_api', 'dc_api.jwt'] as const)(
    'never serves a %s request at a request_uri or response_uri (OpenID4VP 1.0 appendix A)',
    async (mode) => {
      const requests = requestsOf(rowOf(mode));
      expect(await requests.findOpen('acme', reference)).toBeUndefined();
      expect(await requests.findOpenToAnswer('acme', reference)).toBeUndefined();
    },
  );
});
