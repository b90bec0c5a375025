import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { masterKeyOf } from '../config/local-mode.js';
import { DidController } from './did.controller.js';
import { DidService } from './did.service.js';
import { KeyVault } from './key-vault.js';

@Module({
  controllers: [DidController],
  providers: [
    DidService,
    // The tenants' private keys are sealed under the configured master key.
    {
      provide: KeyVault,
      useFactory: (config: AppConfig) => new KeyVault(masterKeyOf(config)),
      inject: [APP_CONFIG],
    },
  ],
  exports: [DidService, KeyVault],
})
export class DidModule {}
