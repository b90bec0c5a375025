import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsInt, Max, Min, registerDecorator, type ValidationArguments } from 'class-validator';

/** What the documentation says of a variable: its meaning, its default, whether its value is a secret. */
export interface SettingInfo {
  description: string;
  /** The default, as the docs print it (`unset` when there is none, or a rule that derives it). */
  default: string;
  secret?: boolean;
}

const catalogue = new Map<string, SettingInfo>();
const owners = new Map<string, object>();

/** Registers a variable in the catalogue that the configuration docs are checked against. */
export function Setting(info: SettingInfo): PropertyDecorator {
  return (target, property) => {
    catalogue.set(String(property), info);
    owners.set(String(property), target.constructor);
  };
}

/** Every variable the service reads, with its documentation, in declaration order. */
export function settingsCatalogue(): ReadonlyMap<string, SettingInfo> {
  return catalogue;
}

/** The variables a settings class and the classes it extends declare, in declaration order. */
export function variablesOf(settingsClass: object): string[] {
  const lineage = new Set<unknown>();
  for (let at: unknown = settingsClass; typeof at === 'function'; at = Object.getPrototypeOf(at)) {
    lineage.add(at);
  }
  return [...owners].filter(([, owner]) => lineage.has(owner)).map(([name]) => name);
}

/**
 * A whole number from `min` to `max` (or at least `min`), converted from the variable's text and refused
 * with one message that names the range (or the unit).
 */
export function WholeNumber(min: number, max?: number, unit?: string): PropertyDecorator {
  const message =
    max !== undefined
      ? `$property must be a whole number from ${min} to ${max}`
      : unit !== undefined
        ? `$property must be a whole number of ${unit}`
        : `$property must be a whole number of at least ${min}`;
  return (target, property) => {
    Type(() => Number)(target, property);
    IsInt({ message })(target, property);
    Min(min, { message })(target, property);
    if (max !== undefined) Max(max, { message })(target, property);
  };
}

/** Text a setting's parser refused, with the message the validation reports. */
export class Refusal {
  constructor(readonly message: string) {}
}

/** What a parser returns for text it does not accept; `$property` names the variable. */
export function refuse(message: string): Refusal {
  return new Refusal(message);
}

/**
 * The variable's text converted into its typed value by `parse` (class-transformer), or refused with the
 * parser's message, which the validation then reports (class-validator). Unset, the property's default stays.
 */
export function Parsed<T>(parse: (text: string) => T | Refusal): PropertyDecorator {
  return (target, property) => {
    Transform(
      ({ value }: { value: unknown }) => (typeof value === 'string' ? parse(value) : value),
      {
        toClassOnly: true,
      },
    )(target, property);
    registerDecorator({
      name: 'parsed',
      target: target.constructor,
      propertyName: String(property),
      options: { message: (args: ValidationArguments) => (args.value as Refusal).message },
      validator: { validate: (value: unknown) => !(value instanceof Refusal) },
    });
  };
}

/** An http(s) URL without credentials, query or fragment; with `origin`, without a path either. */
export function isHttpUrl(text: string, shape: { origin: boolean }): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '' &&
    (!shape.origin || url.pathname === '/')
  );
}

/** An http(s) URL (isHttpUrl) without its trailing slashes, or refused with the message for its shape. */
export function httpUrl(shape: { origin: boolean }): (text: string) => string | Refusal {
  return (text) => {
    if (!isHttpUrl(text, shape)) {
      return refuse(
        shape.origin
          ? `$property must be an http(s) origin without a path, such as 'https://agent.example.com'`
          : '$property must be an http(s) URL without credentials, a query or a fragment',
      );
    }
    return shape.origin ? new URL(text).origin : text.replace(/\/+$/, '');
  };
}

/** Comma-separated items, each matching `item` (spaces allowed around the commas), or refused with `message`. */
export function commaList(item: RegExp, message: string): (text: string) => string[] | Refusal {
  return (text) => {
    const items = text.split(/ *, */);
    return items.every((entry) => item.test(entry)) ? items : refuse(message);
  };
}
