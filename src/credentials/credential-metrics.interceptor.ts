import {
  applyDecorators,
  Injectable,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Request } from 'express';
import { catchError, tap, type Observable } from 'rxjs';
import { DomainException } from '../common/problem/domain.exception.js';
import { Metrics } from '../observability/metrics.js';
import { asArray, isJsonObject } from './credential-checks.js';
import { signingCryptosuites } from './data-integrity.js';

type Operation = 'issue' | 'verify' | 'verify_presentation';

const operationKey = 'agent:credential-operation';
const knownSuites = new Set<string>([...signingCryptosuites, 'Ed25519Signature2020']);

/** Counts and times the handler as a credential operation, by cryptosuite and outcome. */
export const MeasuredCredentialOperation = (operation: Operation) =>
  applyDecorators(
    SetMetadata(operationKey, operation),
    UseInterceptors(CredentialMetricsInterceptor),
  );

@Injectable()
export class CredentialMetricsInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly metrics: Metrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<Operation>(operationKey, context.getHandler());
    const body: unknown = context.switchToHttp().getRequest<Request>().body;
    const started = performance.now();
    const observe = (outcome: string) =>
      this.metrics.credentialOperations.observe(
        { operation, cryptosuite: cryptosuiteOf(operation, body), outcome },
        (performance.now() - started) / 1000,
      );
    return next.handle().pipe(
      tap(() => observe('ok')),
      catchError((error: unknown) => {
        observe(outcomeOf(error));
        throw error;
      }),
    );
  }
}

function outcomeOf(error: unknown): string {
  if (!(error instanceof DomainException)) return 'error';
  return error.code === 'CREDENTIAL_NOT_VERIFIED' ? 'not_verified' : 'refused';
}

/** The suite asked for (issue) or of the first proof (verify); a bounded set of label values. */
function cryptosuiteOf(operation: Operation, body: unknown): string {
  if (!isJsonObject(body)) return 'none';
  let suite: unknown;
  if (operation === 'issue') {
    suite = isJsonObject(body.options)
      ? (body.options.cryptosuite ?? signingCryptosuites[0])
      : signingCryptosuites[0];
  } else {
    const secured =
      operation === 'verify' ? body.verifiableCredential : body.verifiablePresentation;
    const [proof] = isJsonObject(secured) ? asArray(secured.proof) : [];
    if (!isJsonObject(proof)) return 'none';
    suite = proof.type === 'DataIntegrityProof' ? proof.cryptosuite : proof.type;
  }
  return typeof suite === 'string' && knownSuites.has(suite) ? suite : 'other';
}
