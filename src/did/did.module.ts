import { Module } from '@nestjs/common';
import { SecretsModule } from '../secrets/secrets.module.js';
import { DidController } from './did.controller.js';
import { didSealedColumns } from './did.sealed-columns.js';
import { DidRepository } from './did.repository.js';
import { DidService } from './did.service.js';

@Module({
  imports: [SecretsModule.forFeature(didSealedColumns)],
  controllers: [DidController],
  providers: [DidService, DidRepository],
  exports: [DidService],
})
export class DidModule {}
