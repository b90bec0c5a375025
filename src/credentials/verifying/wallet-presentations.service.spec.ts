import { type TrustAnchorPolicy } from '../../trust-anchors/trust-anchor-policy.js';
import { type LdpPresentationVerifier } from './ldp-presentation-verifier.js';
import { type MdocPresentationVerifier } from '../mdoc/mdoc-presentation.js';
import { type SdJwtVcVerifier } from '../sd-jwt/sd-jwt-vc-verifier.js';
import { type TenantTrust, type TenantTrustRead } from './tenant-trust.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
  WalletPresentationsService,
} from './wallet-presentations.service.js';

const verified = { ok: true } as unknown as PresentationCheck;

/**
 * The service over a stored trust, recording its reads and what the SD-JWT VC verifier was given; the
 * verifier asks for the anchors as for a credential with x5c unless `x5c` is false.
 */
function serviceWith(stored: TenantTrust, x5c = true) {
  const reads: string[] = [];
  const anchorReads: string[] = [];
  const given: { trusted: ReadonlySet<string> | undefined; anchors: unknown }[] = [];
  const trust = {
    of: (tenantId: string) => {
      reads.push(tenantId);
      return Promise.resolve(stored);
    },
  } as unknown as TenantTrustRead;
  const sdJwtVcs = {
    verify: async (
      _expectation: PresentationExpectation,
      trusted: ReadonlySet<string> | undefined,
      anchors: () => Promise<unknown>,
    ) => {
      given.push({ trusted, anchors: x5c ? await anchors() : 'not asked' });
      return verified;
    },
  } as unknown as SdJwtVcVerifier;
  const service = new WalletPresentationsService(
    trust,
    {
      anchorsFor: (tenantId: string) => {
        anchorReads.push(tenantId);
        return Promise.resolve(undefined);
      },
    } as unknown as TrustAnchorPolicy,
    sdJwtVcs,
    {} as LdpPresentationVerifier,
    {
      verify: async (_expectation: PresentationExpectation, anchors: () => Promise<unknown>) => {
        given.push({ trusted: undefined, anchors: await anchors() });
        return verified;
      },
    } as unknown as MdocPresentationVerifier,
  );
  return { service, reads, anchorReads, given };
}

function expectation(
  trustedIssuers?: string[],
  tenantTrust?: TenantTrust,
): PresentationExpectation {
  return {
    tenantId: 'acme',
    format: 'dc+sd-jwt',
    presentation: 'eyJ...~',
    nonce: 'n',
    clientId: 'x509_hash:abc',
    signal: new AbortController().signal,
    ...(trustedIssuers === undefined ? {} : { trustedIssuers }),
    ...(tenantTrust === undefined ? {} : { tenantTrust }),
  };
}

describe('WalletPresentationsService, an SD-JWT VC', () => {
  it('reads the tenant’s trusted issuers and anchors once, and uses its list when the request names none', async () => {
    const { service, reads, anchorReads, given } = serviceWith({
      issuers: ['https://issuer.example'],
      anchors: [],
    });
    await expect(service.verify(expectation())).resolves.toBe(verified);
    expect(reads).toEqual(['acme']);
    expect(anchorReads).toEqual([]);
    expect(given).toEqual([{ trusted: new Set(['https://issuer.example']), anchors: undefined }]);
  });

  it('lets the request’s list win, reading the anchors alone and only when asked for them', async () => {
    const named = serviceWith({ issuers: ['https://issuer.example'], anchors: [] });
    await named.service.verify(expectation(['https://other.example']));
    expect(named.given[0].trusted).toEqual(new Set(['https://other.example']));
    expect([named.reads, named.anchorReads]).toEqual([[], ['acme']]);
    const withoutX5c = serviceWith({ issuers: [], anchors: [] }, false);
    await withoutX5c.service.verify(expectation(['https://other.example']));
    expect([withoutX5c.reads, withoutX5c.anchorReads]).toEqual([[], []]);
  });

  it('reads nothing when the answer’s caller read the tenant’s trust with its request', async () => {
    const { service, reads, anchorReads, given } = serviceWith({ issuers: ['stale'], anchors: [] });
    const withRequest = { issuers: ['https://issuer.example'], anchors: ['not a certificate'] };
    await service.verify(expectation(undefined, withRequest));
    await service.verify(expectation(['https://other.example'], withRequest));
    expect([reads, anchorReads]).toEqual([[], []]);
    expect(given).toEqual([
      { trusted: new Set(['https://issuer.example']), anchors: [] },
      { trusted: new Set(['https://other.example']), anchors: [] },
    ]);
  });

  it('trusts any issuer when neither the request nor the tenant names one', async () => {
    const open = serviceWith({ issuers: [], anchors: [] });
    await open.service.verify(expectation());
    expect(open.given[0].trusted).toBeUndefined();
  });

  it('trusts no chain through a stored anchor that no longer parses', async () => {
    const { service, given } = serviceWith({ issuers: [], anchors: ['not a certificate'] });
    await service.verify(expectation());
    expect(given[0].anchors).toEqual([]);
  });
});

describe('WalletPresentationsService, an mdoc', () => {
  const mdoc = (tenantTrust?: TenantTrust): PresentationExpectation => ({
    ...expectation(undefined, tenantTrust),
    format: 'mso_mdoc',
  });

  it('takes the tenant’s anchors read with the request, else reads them alone', async () => {
    const { service, reads, anchorReads, given } = serviceWith({ issuers: [], anchors: [] });
    await service.verify(mdoc({ issuers: [], anchors: ['not a certificate'] }));
    expect([reads, anchorReads, given[0].anchors]).toEqual([[], [], []]);
    await service.verify(mdoc());
    expect([reads, anchorReads, given[1].anchors]).toEqual([[], ['acme'], undefined]);
  });
});
