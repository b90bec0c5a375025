import { Module } from '@nestjs/common';
import { DidController } from './did.controller.js';
import { DidService } from './did.service.js';

/** KeyVault is provided globally by AppModule, built from the configured master key. */
@Module({
  controllers: [DidController],
  providers: [DidService],
  exports: [DidService],
})
export class DidModule {}
