import 'reflect-metadata';
import { resolve } from 'node:path';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { trustedProxies } from './parsers.js';
import { commaList, httpUrl, Parsed, Setting, WholeNumber } from './setting-decorators.js';

/**
 * The settings of the process itself: its mode and port, the origin it is reached at, the database,
 * the token issuer it trusts, where its data lives. The first of the settings' three groups (Settings,
 * settings.ts, extends them all).
 */
export class ServiceSettings {
  @Setting({
    description:
      '`development`, `production` or `test`; `production` refuses to start without ' +
      '`DATABASE_URL`, `AUTH_ISSUER_URL` and `AGENT_MASTER_KEY`',
    default: '`development`',
  })
  @IsIn(['development', 'production', 'test'], {
    message: '$property must be development, production or test',
  })
  readonly NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Setting({ description: 'HTTP port of the app', default: '`8080`' })
  @WholeNumber(0, 65535)
  readonly PORT: number = 8080;

  @Setting({
    description:
      'where to listen; local mode has development passwords, so it stays on loopback unless this opens it',
    default: 'local mode: `127.0.0.1`; else every interface',
  })
  @IsOptional()
  @Matches(/^[0-9A-Za-z.:_-]{1,255}$/, { message: '$property must be a host name or address' })
  readonly HOST?: string;

  @Setting({
    description:
      'the origin users see; every public URL derives from it: the issuer (`iss`), discovery, Swagger, status lists, wallet offers and requests; in local mode, one that names this machine on another port than `PORT` is warned of at start',
    default: '`http://localhost:{PORT}`: where the service listens',
  })
  @Parsed(httpUrl({ origin: true }))
  /** Without a trailing slash; unset: http://localhost:{PORT} (load-settings.ts), so another port just works. */
  readonly PUBLIC_BASE_URL: string = 'http://localhost:8080';

  @Setting({
    description:
      "the peers whose `X-Forwarded-For` names the client's address: `none`, or comma-separated addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`",
    default: '`none`: the app is the origin',
  })
  @Parsed(trustedProxies)
  /** Express's `trust proxy` list; empty: none. */
  readonly TRUST_PROXY: readonly string[] = [];

  @Setting({
    description: 'external PostgreSQL (`postgres://user:password@host:port/database`)',
    default: 'unset: embedded PostgreSQL under `DATA_DIR`',
    secret: true,
  })
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/[^\s]+$/, {
    message: '$property must be a URL that starts with postgres:// or postgresql://',
  })
  readonly DATABASE_URL?: string;

  @Setting({
    description: 'the public token issuer to trust, exactly as tokens name it in `iss`',
    default: 'unset: the embedded issuer at `{PUBLIC_BASE_URL}/auth/realms/agent-cloud`',
  })
  @Parsed(httpUrl({ origin: false }))
  /** Without a trailing slash; unset: the embedded issuer (authIssuerUrl). */
  readonly AUTH_ISSUER_URL?: string;

  @Setting({
    description: "where to fetch the issuer's signing keys; may be an internal URL",
    default: '`{AUTH_ISSUER_URL}/protocol/openid-connect/certs`',
  })
  @Parsed(httpUrl({ origin: false }))
  /** Without a trailing slash; unset: the issuer's (authJwksUrl), over loopback when embedded. */
  readonly AUTH_JWKS_URL?: string;

  @Setting({ description: 'the audience access tokens must name (`aud`)', default: '`agent-api`' })
  @Matches(/^[\x21-\x7e]{1,255}$/, {
    message: '$property must be 1-255 printable characters without spaces',
  })
  readonly AUTH_AUDIENCE: string = 'agent-api';

  @Setting({
    description:
      'ids of master keys lost for good, comma-separated (the 32 hex characters the refusal names): the service starts although values are sealed under them, and their tenants cannot sign; without it, such values stop the start',
    default: 'unset: none',
  })
  @Parsed(
    commaList(
      /^[0-9a-f]{32}$/,
      '$property must be a comma-separated list of master key ids, each 32 hex characters',
    ),
  )
  /** Values sealed under these do not stop the start. */
  readonly AGENT_LOST_MASTER_KEY_IDS: readonly string[] = [];

  @Setting({
    description: "local-mode state: the embedded PostgreSQL, the master key, the issuer's keys",
    default: '`.data`',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path. */
  readonly DATA_DIR: string = resolve('.data');

  @Setting({
    description: 'the realm file the embedded issuer reads',
    default: '`keycloak/agent-cloud-realm.json`',
  })
  readonly AUTH_REALM_FILE?: string;
}
