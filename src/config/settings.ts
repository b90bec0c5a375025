import 'reflect-metadata';
import { IsOptional, Matches } from 'class-validator';
import { type OutboundPolicy } from '../common/outbound.js';
import { OperationSettings } from './operation-settings.js';
import { commaList, Parsed, Setting } from './setting-decorators.js';

export { settingsCatalogue, type SettingInfo } from './setting-decorators.js';

/** The environment variables as the process has them. */
export type Environment = Readonly<Record<string, string | undefined>>;

const realmPath = '/auth/realms/agent-cloud';

/**
 * What the service runs with: each environment variable once, with its documentation, its validation
 * and its typed value, read once at boot (load-settings.ts) and injected as is (the class is the token).
 * The variables come in three groups, each its own class in its own file (ServiceSettings,
 * FeatureSettings, OperationSettings), which this one extends; the values that follow from several
 * variables are the getters here. The master keys are not here: only the secrets module reads them
 * (MasterKeySettings below, secrets/master-keys.ts).
 */
export class Settings extends OperationSettings {
  /**
   * The environment the settings came from, for the realm file's `${VAR:default}` placeholders, without
   * the master keys (load-settings.ts): only the secrets module reads those.
   */
  readonly environment: Environment = {};

  /** No AUTH_ISSUER_URL: tokens come from the embedded issuer on this origin. */
  get authIssuerEmbedded(): boolean {
    return this.AUTH_ISSUER_URL === undefined;
  }

  /** Local mode: embedded database and issuer, everything on the developer's machine. */
  get localMode(): boolean {
    return this.authIssuerEmbedded && this.DATABASE_URL === undefined;
  }

  /**
   * Where to listen; undefined: every interface (Node's default). The embedded issuer has well-known
   * development passwords: this machine only, unless HOST opens it.
   */
  get listenHost(): string | undefined {
    return this.HOST ?? (this.authIssuerEmbedded ? '127.0.0.1' : undefined);
  }

  /** The token issuer to trust, exactly as tokens name it in `iss`. */
  get authIssuerUrl(): string {
    return this.AUTH_ISSUER_URL ?? `${this.PUBLIC_BASE_URL}${realmPath}`;
  }

  /** Where the issuer's signing keys are fetched from. */
  get authJwksUrl(): string {
    return this.AUTH_JWKS_URL ?? `${this.authIssuerUrl}/protocol/openid-connect/certs`;
  }

  /** What status lists and did:web documents may be fetched from beyond public https (common/outbound.ts). */
  get statusListAllowPrivateTargets(): OutboundPolicy['allowPrivate'] {
    return this.STATUS_LIST_ALLOW_PRIVATE_TARGETS ?? this.privateTargetsDefault;
  }

  /** Where webhook deliveries may go beyond public https (common/outbound.ts). */
  get webhookAllowPrivateTargets(): OutboundPolicy['allowPrivate'] {
    return this.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? this.privateTargetsDefault;
  }

  /** Whether the service makes and uses a development certificate authority (docs/certificates.md). */
  get certificateAuthorityDevelopment(): boolean {
    return this.CERTIFICATE_AUTHORITY_DEVELOPMENT ?? this.localMode;
  }

  /**
   * Unset, local mode reaches loopback only (a receiver on the developer's machine), not the other
   * private ranges of the network it happens to be on.
   */
  private get privateTargetsDefault(): OutboundPolicy['allowPrivate'] {
    return this.localMode ? 'loopback' : false;
  }
}

/**
 * The key material, validated with the other settings but never part of what is injected: only the
 * secrets module reads it into the vault (secrets/master-keys.ts).
 */
export class MasterKeySettings {
  @Setting({
    description: "base64 of 32 random bytes that encrypt the tenants' private keys",
    default: 'local mode: generated once into `DATA_DIR/master.key` (mode 0600)',
    secret: true,
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=?$/, {
    message:
      "$property must be 32 random bytes in base64 (make one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\")",
  })
  readonly AGENT_MASTER_KEY?: string;

  @Setting({
    description:
      'earlier master keys, base64, comma-separated, that open what they sealed but seal nothing; empty once `npm run keys:rewrap` has re-sealed everything',
    default: 'unset: none',
    secret: true,
  })
  @Parsed(
    commaList(
      /^[A-Za-z0-9+/]{43}=?$/,
      '$property must be a comma-separated list of keys, each 32 random bytes in base64',
    ),
  )
  readonly AGENT_PREVIOUS_MASTER_KEYS: readonly string[] = [];
}
