import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DidController } from './did.controller.js';
import { DidEntity } from './did.entity.js';
import { DidService } from './did.service.js';

/** KeyVault is provided globally by AppModule, built from the configured master key. */
@Module({
  imports: [TypeOrmModule.forFeature([DidEntity])],
  controllers: [DidController],
  providers: [DidService],
  exports: [DidService],
})
export class DidModule {}
