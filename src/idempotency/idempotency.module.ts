import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretsModule } from '../secrets/secrets.module.js';
import { IdempotencyKeyRepository } from './idempotency-key.repository.js';
import { IdempotencyKeyEntity } from './idempotency-key.entity.js';
import { idempotencySealedColumns } from './idempotency-key.sealed-columns.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyPurge } from './idempotency-purge.js';
import { IdempotencyStore } from './idempotency-store.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const idempotencyEntities = [IdempotencyKeyEntity];

/** Idempotency keys for every feature's creates (@Idempotent): global, so a controller needs no import. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature(idempotencyEntities),
    SecretsModule.forFeature(idempotencySealedColumns),
  ],
  providers: [IdempotencyKeyRepository, IdempotencyStore, IdempotencyInterceptor, IdempotencyPurge],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
