import {
  Injectable,
  ValidationPipe,
  type ArgumentMetadata,
  type PipeTransform,
  type ValidationError,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
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
 * Refuses fields that a DTO does not declare, by the object's own keys. class-validator's whitelist looks
 * names up on a plain object, so `constructor`, `toString` or `__proto__` would slip through it.
 */
@Injectable()
export class UnknownFieldsPipe implements PipeTransform {
  private readonly known = new WeakMap<object, Set<string>>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.metatype;
    if (
      (metadata.type !== 'body' && metadata.type !== 'query') ||
      type === undefined ||
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value)
    ) {
      return value;
    }
    const known = this.knownFields(type);
    if (known.size === 0) return value;
    const unknown = Object.keys(value).filter((key) => !known.has(key));
    if (unknown.length > 0) {
      const errors = unknown.map((field) => ({ field, message: 'is not a known field' }));
      throw new DomainException(
        'VALIDATION_FAILED',
        errors.map((error) => `${error.field} ${error.message}`).join('; '),
        errors,
      );
    }
    return value;
  }

  private knownFields(type: object): Set<string> {
    let fields = this.known.get(type);
    if (fields === undefined) {
      fields = new Set(
        getMetadataStorage()
          .getTargetValidationMetadatas(type as new () => object, '', true, false)
          .map((entry) => entry.propertyName),
      );
      this.known.set(type, fields);
    }
    return fields;
  }
}
