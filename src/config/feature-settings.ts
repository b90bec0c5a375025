import 'reflect-metadata';
import { resolve } from 'node:path';
import { Transform } from 'class-transformer';
import { outboundCa, retryDelays } from './parsers.js';
import { Parsed, refuse, type Refusal, Setting, WholeNumber } from './setting-decorators.js';
import { ServiceSettings } from './service-settings.js';

type StatusPurpose = 'revocation' | 'suspension';

const statusPurposes = new Map<string, readonly StatusPurpose[]>([
  ['revocation', ['revocation']],
  ['suspension', ['suspension']],
  ['revocation,suspension', ['revocation', 'suspension']],
  ['suspension,revocation', ['suspension', 'revocation']],
  ['none', []],
]);

function trueOrFalse(text: string): boolean | Refusal {
  return text === 'true' || text === 'false'
    ? text === 'true'
    : refuse('$property must be true or false');
}

/** The settings of the features: credentials, status lists and what may be fetched, webhooks, OpenID4VP. */
export class FeatureSettings extends ServiceSettings {
  @Setting({
    description:
      'a folder of JSON-LD contexts credentials may use besides the bundled ones (`{"url": ..., "@context": ...}` per file)',
    default: 'unset: the bundled contexts only',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path; unset: the bundled contexts only. */
  readonly CREDENTIAL_CONTEXTS_DIR?: string;

  @Setting({
    description:
      'the status entries an issued credential gets unless the request says otherwise: `revocation`, `suspension`, `revocation,suspension` or `none`',
    default: '`revocation`',
  })
  @Parsed(
    (text) =>
      statusPurposes.get(text) ??
      refuse('$property must be revocation, suspension, revocation,suspension or none'),
  )
  /** The status purposes an issued credential gets by default (none: empty). */
  readonly CREDENTIAL_STATUS_DEFAULT: readonly StatusPurpose[] = ['revocation'];

  @Setting({
    description:
      "`true` lets credential verification fetch status lists (also over plain http) and did:web documents (https), and tenants' login providers be reached, at loopback and private addresses (not link-local, metadata or its own ports); development only",
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @Parsed(trueOrFalse)
  /** Unset: statusListAllowPrivateTargets applies local mode's default. */
  readonly STATUS_LIST_ALLOW_PRIVATE_TARGETS?: boolean;

  @Setting({
    description:
      "a PEM file of certificate authorities outbound https (status lists, did:web documents, webhooks) trusts besides Node's bundled roots: a private or test CA",
    default: "unset: Node's bundled roots only",
  })
  @Parsed(outboundCa)
  /** The file read: Node's bundled roots and its certificates, which outbound https trusts; unset: Node's default. */
  readonly OUTBOUND_CA_FILE?: readonly string[];

  @Setting({
    description:
      '`true` lets webhooks go to loopback and private addresses and over plain http (not link-local, metadata or its own ports); development only',
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @Parsed(trueOrFalse)
  /** Unset: webhookAllowPrivateTargets applies local mode's default. */
  readonly WEBHOOK_ALLOW_PRIVATE_TARGETS?: boolean;

  @Setting({
    description:
      'the waits before each retry of a failed webhook delivery, in milliseconds, comma-separated (at most 20, each at most a day); the delivery fails after the last',
    default: '`5000,300000,1800000,7200000,18000000,36000000,36000000` (Standard Webhooks)',
  })
  @Parsed(retryDelays)
  readonly WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
    5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
  ];

  @Setting({
    description: 'a subscription whose deliveries failed this many times in a row is disabled',
    default: '`100`',
  })
  @WholeNumber(1, 100_000)
  readonly WEBHOOK_DISABLE_AFTER_FAILURES: number = 100;

  @Setting({
    description:
      'events older than this many days are removed with their deliveries and attempt log, once none is pending',
    default: '`7`',
  })
  @WholeNumber(1, 3650)
  readonly WEBHOOK_RETENTION_DAYS: number = 7;

  @Setting({
    description:
      "a PEM file of the service's certificate authority: its CA certificate (P-256 or P-384 key), then its issuers up to the root; imported at start with `CERTIFICATE_AUTHORITY_KEY_FILE` and kept sealed in the database (docs/certificates.md)",
    default: 'unset: the authority imported before, or none (local mode: a development one)',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path; read once at start by the certificates feature. */
  readonly CERTIFICATE_AUTHORITY_CERT_FILE?: string;

  @Setting({
    description:
      "a PEM file of the private key of `CERTIFICATE_AUTHORITY_CERT_FILE`'s certificate (PKCS #8 or SEC 1, unencrypted); set both or neither",
    default: 'unset',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path; the key is sealed with the master key when imported and read nowhere else. */
  readonly CERTIFICATE_AUTHORITY_KEY_FILE?: string;

  @Setting({
    description:
      '`true` makes a development certificate authority at the first start when none is configured, and gives every tenant a certificate from it on first need; development only',
    default: 'local mode (embedded database and issuer): `true`; else `false`',
  })
  @Parsed(trueOrFalse)
  /** Unset: certificateAuthorityDevelopment applies local mode's default. */
  readonly CERTIFICATE_AUTHORITY_DEVELOPMENT?: boolean;

  @Setting({
    description: "the days a tenant's certificate from the service's authority is valid",
    default: '`365`',
  })
  @WholeNumber(1, 825)
  readonly CERTIFICATE_VALIDITY_DAYS: number = 365;

  @Setting({
    description:
      "the ISO 3166-1 alpha-2 country of the tenants' mdocs: the countryName of their document signer certificates and of a development authority (ISO/IEC 18013-5 Annex B); an mDL's `issuing_country` must be it",
    default: '`XX` (user-assigned: no country; set yours)',
  })
  @Parsed((text) =>
    /^[A-Z]{2}$/.test(text)
      ? text
      : refuse('$property must be two capital letters (ISO 3166-1 alpha-2)'),
  )
  readonly MDOC_ISSUER_COUNTRY: string = 'XX';

  @Setting({
    description:
      "`true` makes every tenant's token endpoint require a DPoP server nonce (RFC 9449 §8): a DPoP proof without a fresh one is answered `use_dpop_nonce` with a `DPoP-Nonce` header",
    default: '`false`',
  })
  @Parsed(trueOrFalse)
  readonly DPOP_NONCE_REQUIRED: boolean = false;

  @Setting({
    description:
      'the claims a wallet disclosed to an OpenID4VP presentation request are erased this many seconds after the request ended (its outcome stays)',
    default: '`86400`',
  })
  @WholeNumber(0, 31_536_000)
  readonly OID4VP_CLAIMS_RETENTION_SECONDS: number = 86_400;
}
