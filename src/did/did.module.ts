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
    // The current master key seals; the previous ones open what they sealed until it is re-sealed.
    {
      provide: KeyVault,
      useFactory: (config: AppConfig) =>
        new KeyVault(masterKeyOf(config), config.previousMasterKeys),
      inject: [APP_CONFIG],
    },
  ],
  exports: [DidService, KeyVault],
})
export class DidModule {}
