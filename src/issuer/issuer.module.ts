import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { type AppConfig } from '../config/app-config.js';
import { AuthSessionStore } from './auth-session-store.js';
import { BrowserLoginController } from './browser-login.controller.js';
import { IssuerAuthSessionEntity } from './issuer-auth-session.entity.js';
import { ISSUER_CLOCK, systemClock, type Clock } from './issuer-clock.js';
import { IssuerCodeEntity } from './issuer-code.entity.js';
import { IssuerController } from './issuer.controller.js';
import { IssuerPurge } from './issuer-purge.js';
import { IssuerKeys } from './issuer-keys.js';
import { ISSUER_URL, IssuerService } from './issuer.service.js';
import { IssuerSessionEntity } from './issuer-session.entity.js';
import { defaultRealmFilePath, loadRealmFile } from './realm-file.js';
import { Realm } from './realm.js';

export const realmName = 'agent-cloud';

/** The embedded issuer: only mounted when AUTH_ISSUER_URL is unset, which production forbids. */
@Module({})
export class IssuerModule {
  static register(config: AppConfig, clock: Clock = systemClock): DynamicModule {
    const file = loadRealmFile(config.realmFile ?? defaultRealmFilePath(), config.environment);
    if (file.realm !== realmName) {
      throw new Error(
        `The realm file defines realm '${file.realm}'; the service serves '${realmName}'`,
      );
    }
    new Logger('EmbeddedIssuer').warn(
      `Embedded Keycloak-compatible issuer at ${config.authIssuerUrl} is for development and tests only; ` +
        'set AUTH_ISSUER_URL to a real Keycloak in production.',
    );
    return {
      module: IssuerModule,
      imports: [
        TypeOrmModule.forFeature([IssuerSessionEntity, IssuerCodeEntity, IssuerAuthSessionEntity]),
      ],
      controllers: [IssuerController, BrowserLoginController],
      providers: [
        { provide: Realm, useValue: new Realm(file) },
        { provide: IssuerKeys, useValue: IssuerKeys.loadOrCreate(join(config.dataDir, 'issuer')) },
        { provide: ISSUER_URL, useValue: config.authIssuerUrl },
        { provide: ISSUER_CLOCK, useValue: clock },
        IssuerService,
        AuthSessionStore,
        IssuerPurge,
      ],
      exports: [IssuerService],
    };
  }
}
