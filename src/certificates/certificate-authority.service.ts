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
import { type AuthoritySource } from './certificate-authority.entity.js';
import { CertificateAuthorityRepository } from './certificate-authority.repository.js';
import { authorityKeyPurpose } from './certificates.sealed-columns.js';

/** The development authority's lifetime: longer than any leaf it issues. */
const developmentAuthorityYears = 10;

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
  async issue(
    profile: LeafProfile,
  ): Promise<{ leaf: Buffer; authority: CurrentAuthority } | undefined> {
    const row = await this.authorities.current();
    if (row === undefined) return undefined;
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
      const leaf = await issueLeaf({ chain, privateKey }, profile);
      return { leaf, authority: { id: row.id, source: row.source, chain, root: rootOf(chain) } };
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

  private async makeDevelopmentAuthority(): Promise<void> {
    if ((await this.authorities.current()) !== undefined) return;
    const now = this.clock();
    const host = new URL(this.settings.PUBLIC_BASE_URL).host;
    const material = await makeDevelopmentAuthority(
      `Agent service development CA (${host})`,
      new Date(now - 60_000),
      new Date(now + developmentAuthorityYears * 365 * 86_400_000),
    );
    const record = this.record('development', material);
    await this.authorities.insertIfNone(record);
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
