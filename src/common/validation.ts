import {
  Injectable,
  ValidationPipe,
  type ArgumentMetadata,
  type PipeTransform,
  type ValidationError,
} from '@nestjs/common';
import { DomainException } from './problem/domain.exception.js';
import { type FieldError } from './problem/problem.js';

function fieldErrors(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = `${prefix}${error.property}`;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => ({
      field,
      message:
        constraint === 'whitelistValidation'
          ? 'is not a known field'
          : message.replace(new RegExp(`^${error.property} `), ''),
    }));
    return [...own, ...fieldErrors(error.children ?? [], `${field}.`)];
  });
}

/** Strict DTOs (unknown fields refused), answers in problem form. */
function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    stopAtFirstError: true,
    exceptionFactory: (errors) => {
      const details = fieldErrors(errors);
      return new DomainException(
        'VALIDATION_FAILED',
        details.map((error) => `${error.field} ${error.message}`).join('; ') ||
          'The request is not valid.',
        details,
      );
    },
  });
}

/**
 * Refuses fields named like Object.prototype's members (`constructor`, `toString`, `__proto__`, ...)
 * and `prototype`: class-validator's whitelist looks names up on a plain object or a class, so those
 * would slip through it. Every other undeclared field is refused by the ValidationPipe's
 * `forbidNonWhitelisted`.
 */
function refusePrototypeFields(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const refused = Object.keys(value).filter(
    (key) => key in Object.prototype || key === 'prototype',
  );
  if (refused.length === 0) return;
  const errors = refused.map((field) => ({ field, message: 'is not a known field' }));
  throw new DomainException(
    'VALIDATION_FAILED',
    errors.map((error) => `${error.field} ${error.message}`).join('; '),
    errors,
  );
}

/**
 * The one global pipe. A body or query is checked for prototype names, then validated against its
 * DTO; a path parameter goes through the ValidationPipe as well. A custom parameter's value (our
 * decorators' caller and tenant, set by the guards) passes as it is, without the ValidationPipe's
 * async transform, which leaves such values alone anyway (docs/performance.md).
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  private readonly validation = createValidationPipe();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    if (metadata.type === 'body' || metadata.type === 'query') refusePrototypeFields(value);
    return this.validation.transform(value, metadata);
  }
}
