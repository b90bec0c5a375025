import { Injectable } from '@nestjs/common';
import { CertificatesService } from '../certificates/certificates.service.js';
import { Settings } from '../config/settings.js';
import { DidService } from '../did/did.service.js';
import { TenantKeys, type Es256SigningKey } from '../did/tenant-keys.service.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { parseCertificate, publicKeyJwk } from '../x509/chain.js';
import {
  leafFitsClientId,
  maxClientIdChars,
  x509HashClientId,
  x509SanDnsClientId,
  type ClientIdPrefix,
} from './client-ids.js';
import { clientIdPrefixUnavailable } from './requests/presentation-request.errors.js';
import { clientIdOf } from './verifier-urls.js';

/** What signs an x509 client's request object: its ES256 key and the `x5c` that certifies it. */
export interface X509RequestSigning {
  x5c: string[];
  key: Es256SigningKey;
}

/**
 * Who a tenant is as a verifier (OpenID4VP 1.0 §5.9.3, HAIP 1.0 §5): the client id of a new request,
 * from its X.509 certificate or its DID, and what signs the request object of an x509 client id.
 */
@Injectable()
export class VerifierIdentity {
  /** Each tenant's chain while it is being read: a burst's first need issues once, holding no connection. */
  private readonly chainsInFlight = new Map<string, Promise<string[] | undefined>>();

  constructor(
    private readonly settings: Settings,
    private readonly dids: DidService,
    private readonly keys: TenantKeys,
    private readonly certificates: CertificatesService,
  ) {}

  /**
   * The client id for `prefix`; without one, `x509_hash` when the tenant has an active certificate,
   * else its DID. An x509 prefix the certificate cannot make is a 409, nothing stored.
   */
  async clientIdFor(tenantId: string, prefix?: ClientIdPrefix): Promise<string> {
    if (prefix !== 'decentralized_identifier') {
      const chain = await this.activeChain(tenantId);
      if (chain !== undefined) return this.x509ClientId(chain[0], prefix ?? 'x509_hash');
      if (prefix !== undefined) {
        throw clientIdPrefixUnavailable(prefix, 'it has no active X.509 certificate.');
      }
    }
    // The DID goes with its tenant: without it, the tenant was deleted since the check.
    const did = (await this.dids.didsOf([tenantId])).get(tenantId);
    if (did === undefined) throw tenantNotFound(tenantId);
    return clientIdOf(did);
  }

  /**
   * The tenant's key and chain for a request made as `clientId`, or undefined when its active
   * certificate no longer stands for that client id or that key (renewed or replaced since).
   */
  async x509SigningFor(
    tenantId: string,
    clientId: string,
  ): Promise<X509RequestSigning | undefined> {
    const x5c = await this.activeChain(tenantId);
    if (x5c === undefined) return undefined;
    // Our own certificate, parsed (and remembered) as any x5c element is.
    const leaf = parseCertificate(x5c[0]);
    if (typeof leaf === 'string') return undefined;
    if (!leafFitsClientId(clientId, leaf.der, leaf.dnsNames)) return undefined;
    const key = await this.keys.es256SigningKey(tenantId);
    const certified = publicKeyJwk(leaf);
    if (certified?.x !== key.publicJwk.x || certified?.y !== key.publicJwk.y) return undefined;
    return { x5c, key };
  }

  /** The tenant's active chain; concurrent callers in this process share one read (and first issue). */
  private activeChain(tenantId: string): Promise<string[] | undefined> {
    const shared = this.chainsInFlight.get(tenantId);
    if (shared !== undefined) return shared;
    const read = this.certificates.activeChain(tenantId).finally(() => {
      this.chainsInFlight.delete(tenantId);
    });
    this.chainsInFlight.set(tenantId, read);
    return read;
  }

  private x509ClientId(leafX5c: string, prefix: 'x509_hash' | 'x509_san_dns'): string {
    const leaf = Buffer.from(leafX5c, 'base64');
    if (prefix === 'x509_hash') return x509HashClientId(leaf);
    const host = new URL(this.settings.PUBLIC_BASE_URL).hostname;
    const parsed = parseCertificate(leafX5c);
    const dnsNames = typeof parsed === 'string' ? [] : parsed.dnsNames;
    const clientId = x509SanDnsClientId(dnsNames, host);
    if (clientId !== undefined && clientId.length <= maxClientIdChars) return clientId;
    throw clientIdPrefixUnavailable(
      prefix,
      dnsNames.length === 0
        ? 'its certificate names no DNS name (dNSName).'
        : `its certificate names the DNS names ${dnsNames.join(', ')}, none of them the host '${host}' of the verifier's response_uri, which OpenID4VP 1.0 §5.9.3 requires.`,
    );
  }
}
