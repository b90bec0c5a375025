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

/** The global pipe: strict DTOs (unknown fields refused), answers in problem form. */
export function createValidationPipe(): ValidationPipe {
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
 * would slip through it. Every
 * other undeclared field is refused by the ValidationPipe's `forbidNonWhitelisted`.
 */
@Injectable()
export class PrototypeFieldsPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (
      (metadata.type !== 'body' && metadata.type !== 'query') ||
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value)
    ) {
      return value;
    }
    const refused = Object.keys(value).filter(
      (key) => key in Object.prototype || key === 'prototype',
    );
    if (refused.length > 0) {
      const errors = refused.map((field) => ({ field, message: 'is not a known field' }));
      throw new DomainException(
        'VALIDATION_FAILED',
        errors.map((error) => `${error.field} ${error.message}`).join('; '),
        errors,
      );
    }
    return value;
  }
}
