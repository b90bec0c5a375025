import { Global, Module } from '@nestjs/common';
import { SecretsModule } from '../secrets/secrets.module.js';
import { IdempotencyKeyRepository } from './idempotency-key.repository.js';
import { idempotencySealedColumns } from './idempotency-key.sealed-columns.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyPurge } from './idempotency-purge.js';
import { IdempotencyStore } from './idempotency-store.js';

/** Idempotency keys for every feature's creates (@Idempotent): global, so a controller needs no import. */
@Global()
@Module({
  imports: [SecretsModule.forFeature(idempotencySealedColumns)],
  providers: [IdempotencyKeyRepository, IdempotencyStore, IdempotencyInterceptor, IdempotencyPurge],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
