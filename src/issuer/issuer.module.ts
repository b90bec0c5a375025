import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { type Settings } from '../config/settings.js';
import { AuthSessionStore } from './auth-session-store.js';
import { BrowserLoginController } from './browser-login.controller.js';
import { BruteForceProtector } from './brute-force-protector.js';
import { IssuerAuthSessionEntity } from './issuer-auth-session.entity.js';
import { IssuerAuthSessionRepository } from './issuer-auth-session.repository.js';
import { IssuerCodeEntity } from './issuer-code.entity.js';
import { IssuerCodeRepository } from './issuer-code.repository.js';
import { IssuerLoginFailureEntity } from './issuer-login-failure.entity.js';
import { IssuerLoginFailureRepository } from './issuer-login-failure.repository.js';
import { IssuerPurge } from './issuer-purge.js';
import { DiscoveryController } from './discovery.controller.js';
import { IssuerKeys } from './issuer-keys.js';
import { IssuerSessions } from './issuer-sessions.js';
import { ISSUER_URL } from './issuer-url.js';
import { LogoutController } from './logout.controller.js';
import { OwnTokens } from './own-tokens.js';
import { PasswordLogin } from './password-login.js';
import { TokenController } from './token.controller.js';
import { TokenFactory } from './token-factory.js';
import { TokenGrants } from './token-grants.js';
import { IssuerSessionEntity } from './issuer-session.entity.js';
import { IssuerSessionRepository } from './issuer-session.repository.js';
import { IssuerRevokedTokenEntity } from './issuer-revoked-token.entity.js';
import { IssuerRevokedTokenRepository } from './issuer-revoked-token.repository.js';
import { RevokedTokens } from './revoked-tokens.js';
import { TokenIntrospection } from './token-introspection.js';
import { TokenIntrospectionController } from './token-introspection.controller.js';
import { defaultRealmFilePath, loadRealmFile } from './realm-file.js';
import { Realm } from './realm.js';

export const realmName = 'agent-cloud';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const issuerEntities = [
  IssuerSessionEntity,
  IssuerCodeEntity,
  IssuerAuthSessionEntity,
  IssuerLoginFailureEntity,
  IssuerRevokedTokenEntity,
];

/** The embedded issuer: only mounted when AUTH_ISSUER_URL is unset, which production forbids. */
@Module({})
export class IssuerModule {
  static register(settings: Settings): DynamicModule {
    // The redirect URIs' ${PUBLIC_BASE_URL} is the origin the service uses, derived from PORT when unset.
    const file = loadRealmFile(settings.AUTH_REALM_FILE ?? defaultRealmFilePath(), {
      ...settings.environment,
      PUBLIC_BASE_URL: settings.PUBLIC_BASE_URL,
    });
    if (file.realm !== realmName) {
      throw new Error(
        `The realm file defines realm '${file.realm}'; the service serves '${realmName}'`,
      );
    }
    new Logger('EmbeddedIssuer').warn(
      `Embedded Keycloak-compatible issuer at ${settings.authIssuerUrl} is for development and tests only; ` +
        'set AUTH_ISSUER_URL to a real Keycloak in production.',
    );
    return {
      module: IssuerModule,
      imports: [TypeOrmModule.forFeature(issuerEntities)],
      controllers: [
        DiscoveryController,
        TokenController,
        TokenIntrospectionController,
        LogoutController,
        BrowserLoginController,
      ],
      providers: [
        { provide: Realm, useValue: new Realm(file) },
        {
          provide: IssuerKeys,
          useValue: IssuerKeys.loadOrCreate(join(settings.DATA_DIR, 'issuer')),
        },
        { provide: ISSUER_URL, useValue: settings.authIssuerUrl },
        {
          provide: TokenFactory,
          useFactory: (realm: Realm, keys: IssuerKeys, issuerUrl: string) =>
            new TokenFactory(realm, keys, issuerUrl),
          inject: [Realm, IssuerKeys, ISSUER_URL],
        },
        IssuerSessionRepository,
        IssuerCodeRepository,
        IssuerAuthSessionRepository,
        IssuerLoginFailureRepository,
        IssuerRevokedTokenRepository,
        IssuerSessions,
        BruteForceProtector,
        PasswordLogin,
        TokenGrants,
        OwnTokens,
        AuthSessionStore,
        IssuerPurge,
        RevokedTokens,
        TokenIntrospection,
      ],
    };
  }
}
