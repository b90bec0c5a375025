import { ValidationPipe, type ValidationError } from '@nestjs/common';
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
