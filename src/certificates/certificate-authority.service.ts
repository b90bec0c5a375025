import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CLOCK, type Clock } from '../common/clock.js';
import { Settings } from '../config/settings.js';
import { KeyVault } from '../secrets/key-vault.js';
import { masterKeyUnavailable } from '../secrets/master-key.errors.js';
import {
  issueLeaf,
  makeDevelopmentAuthority,
  readAuthority,
  rootOf,
  type AuthorityMaterial,
  type LeafProfile,
} from '../x509/authority.js';
import { ChainRefusal } from '../x509/certificate.js';
import { makeCrl } from '../x509/crl.js';
import { issueDocumentSigner, type DocumentSignerProfile } from '../x509/document-signer.js';
import { x509 } from '../x509/x509.js';
import {
  type AuthoritySource,
  type CertificateAuthorityEntity,
} from './certificate-authority.entity.js';
import { CertificateAuthorityRepository } from './certificate-authority.repository.js';
import { authorityKeyPurpose } from './certificates.sealed-columns.js';

/** The development authority's lifetime: longer than any leaf it issues. */
const developmentAuthorityYears = 10;

/** A CRL is made again after an hour, and says the next one comes within a week (RFC 5280 §5.1.2.5). */
const crlRefreshMs = 3_600_000;
const crlValidityMs = 7 * 86_400_000;

/** The public path of an authority's CRL, the document signers' CRL distribution point. */
export const crlPath = (authorityId: string) => `/ctrl/certificate-authorities/${authorityId}/crl`;

/** The authority that issues now, without its key: what the API shows and a leaf's x5c adds. */
export interface CurrentAuthority {
  id: string;
  source: AuthoritySource;
  /** DER: the authority's certificate first, its issuers up to the root after it. */
  chain: Buffer[];
  /** The root, when the chain ends with one (the development authority is its own). */
  root: Buffer | undefined;
}

/**
 * The service's certificate authority (docs/certificates.md): the operator's, imported at start from
 * the files its settings name and kept sealed with the master key (so `npm run keys:rewrap` re-seals
 * it), or in development one made at the first start. Its key is unsealed for each signature only.
 */
@Injectable()
export class CertificateAuthorityService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Certificates');
  /** Each authority's last CRL on this instance (a handful of authorities at most). */
  private readonly crls = new Map<string, { der: Buffer; madeAt: number }>();

  constructor(
    private readonly settings: Settings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly authorities: CertificateAuthorityRepository,
  ) {}

  /** At start: the configured files imported, or the development authority made once. */
  async onApplicationBootstrap(): Promise<void> {
    const { CERTIFICATE_AUTHORITY_CERT_FILE: certFile, CERTIFICATE_AUTHORITY_KEY_FILE: keyFile } =
      this.settings;
    if ((certFile === undefined) !== (keyFile === undefined)) {
      throw new Error(
        'CERTIFICATE_AUTHORITY_CERT_FILE and CERTIFICATE_AUTHORITY_KEY_FILE go together: set both or neither',
      );
    }
    if (certFile !== undefined && keyFile !== undefined) {
      await this.importConfigured(certFile, keyFile);
    } else if (this.settings.certificateAuthorityDevelopment) {
      await this.makeDevelopmentAuthority();
    }
  }

  /** The authority that issues now, or undefined when the service has none. */
  async current(): Promise<CurrentAuthority | undefined> {
    const row = await this.authorities.current();
    if (row === undefined) return undefined;
    const chain = row.chain.map((der) => Buffer.from(der, 'base64'));
    return { id: row.id, source: row.source, chain, root: rootOf(chain) };
  }

  /** A leaf for a tenant's key signed by the current authority; undefined when there is none. */
  issue(profile: LeafProfile): Promise<{ leaf: Buffer; authority: CurrentAuthority } | undefined> {
    return this.signWithCurrent((material) => issueLeaf(material, profile));
  }

  /**
   * A document signer certificate (ISO/IEC 18013-5 Annex B.1.4) for a tenant's key, signed by the
   * current authority acting as IACA, its CRL distribution point the authority's public CRL.
   */
  issueDocumentSigner(
    profile: Omit<DocumentSignerProfile, 'crlUri'>,
  ): Promise<{ leaf: Buffer; authority: CurrentAuthority } | undefined> {
    return this.signWithCurrent((material, row) =>
      issueDocumentSigner(material, {
        ...profile,
        crlUri: new URL(crlPath(row.id), this.settings.PUBLIC_BASE_URL).href,
      }),
    );
  }

  /**
   * The DER CRL of the authority `id` (current or earlier), made at most once an hour per instance;
   * undefined when there is no such authority.
   */
  async crl(id: string): Promise<Buffer | undefined> {
    const now = this.clock();
    const cached = this.crls.get(id);
    if (cached !== undefined && now - cached.madeAt < crlRefreshMs) return cached.der;
    const row = await this.authorities.byId(id);
    if (row === undefined) return undefined;
    const der = await this.withKey(row, (material) =>
      makeCrl(material, new Date(now - 60_000), new Date(now + crlValidityMs)),
    );
    this.crls.set(id, { der, madeAt: now });
    return der;
  }

  private async signWithCurrent(
    sign: (material: AuthorityMaterial, row: CertificateAuthorityEntity) => Promise<Buffer>,
  ): Promise<{ leaf: Buffer; authority: CurrentAuthority } | undefined> {
    const row = await this.authorities.current();
    if (row === undefined) return undefined;
    const leaf = await this.withKey(row, (material) => sign(material, row));
    const chain = row.chain.map((der) => Buffer.from(der, 'base64'));
    return { leaf, authority: { id: row.id, source: row.source, chain, root: rootOf(chain) } };
  }

  /** Runs `work` with the authority's key unsealed, wiped after it. */
  private async withKey<T>(
    row: CertificateAuthorityEntity,
    work: (material: AuthorityMaterial) => Promise<T>,
  ): Promise<T> {
    if (!this.vault.has(row.masterKeyId)) {
      this.logger.error({
        msg: `The certificate authority ${row.id} is sealed under master key ${row.masterKeyId}, which this instance does not have: add it to AGENT_PREVIOUS_MASTER_KEYS`,
        event: 'master-key.unknown',
        masterKeyId: row.masterKeyId,
      });
      throw masterKeyUnavailable();
    }
    const chain = row.chain.map((der) => Buffer.from(der, 'base64'));
    const privateKey = this.vault.open(
      row.id,
      row.privateKeySealed,
      authorityKeyPurpose,
      row.masterKeyId,
    );
    try {
      return await work({ chain, privateKey });
    } finally {
      privateKey.fill(0);
    }
  }

  private async importConfigured(certFile: string, keyFile: string): Promise<void> {
    let material: AuthorityMaterial;
    try {
      material = readAuthority(readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
    } catch (error) {
      const reason =
        error instanceof ChainRefusal
          ? error.message
          : `cannot be read (${(error as Error).message})`;
      throw new Error(
        `The certificate authority in CERTIFICATE_AUTHORITY_CERT_FILE and CERTIFICATE_AUTHORITY_KEY_FILE is refused: ${reason}`,
        { cause: error },
      );
    }
    const record = this.record('configured', material);
    await this.authorities.makeCurrent(record);
    this.logger.log({
      msg: `The certificate authority ${record.fingerprint} (configured) issues the tenants' certificates`,
      event: 'certificate-authority.configured',
      fingerprint: record.fingerprint,
    });
  }

  /**
   * The development authority, made once; one made before it was also an mdoc IACA (no countryName)
   * is replaced by one that is (docs/certificates.md, Document signer).
   */
  private async makeDevelopmentAuthority(): Promise<void> {
    const current = await this.authorities.current();
    if (current !== undefined && (current.source !== 'development' || isIaca(current))) return;
    const now = this.clock();
    const base = new URL(this.settings.PUBLIC_BASE_URL);
    const material = await makeDevelopmentAuthority(
      `Agent service development CA (${base.host})`,
      new Date(now - 60_000),
      new Date(now + developmentAuthorityYears * 365 * 86_400_000),
      { country: this.settings.MDOC_ISSUER_COUNTRY, issuerUri: base.href },
    );
    const record = this.record('development', material);
    if (current === undefined) await this.authorities.insertIfNone(record);
    else await this.authorities.makeCurrent(record);
    this.logger.warn({
      msg: 'A development certificate authority issues the tenants’ certificates: wallets trust it only if told to (docs/certificates.md)',
      event: 'certificate-authority.development',
    });
  }

  /** The row for the material, its key sealed to the row id; the plain key is wiped. */
  private record(source: AuthoritySource, material: AuthorityMaterial) {
    const id = randomUUID();
    try {
      return {
        id,
        source,
        fingerprint: createHash('sha256').update(material.chain[0]).digest('hex'),
        chain: material.chain.map((der) => der.toString('base64')),
        privateKeySealed: this.vault.seal(id, material.privateKey, authorityKeyPurpose),
        masterKeyId: this.vault.masterKeyId,
      };
    } finally {
      material.privateKey.fill(0);
    }
  }
}

/** Whether the authority's root names a country, as an mdoc IACA does (ISO/IEC 18013-5 Annex B.1.2). */
function isIaca(row: CertificateAuthorityEntity): boolean {
  const root = row.chain.at(-1);
  return (
    root !== undefined &&
    new x509.X509Certificate(Buffer.from(root, 'base64')).subjectName.getField('C').length > 0
  );
}
