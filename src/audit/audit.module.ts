import { Global, Module } from '@nestjs/common';
import { AuditLog } from './audit-log.js';

/** Global: every feature that changes something writes its audit line through AuditLog. */
@Global()
@Module({ providers: [AuditLog], exports: [AuditLog] })
export class AuditModule {}
