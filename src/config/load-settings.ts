import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { variablesOf } from './setting-decorators.js';
import { MasterKeySettings, Settings, type Environment } from './settings.js';

export { type Environment } from './settings.js';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment and returns the frozen settings every part is given (api.md, Configuration);
 * throws a ConfigError naming a variable. Validates the master keys too, but leaves them out.
 */
export function loadSettings(env: Environment = process.env): Settings {
  const settings = validated(Settings, env);
  const keys = loadMasterKeySettings(env);
  if (settings.NODE_ENV === 'production') {
    // The embedded parts are for development and tests only (api.md, Configuration).
    const required = {
      DATABASE_URL: settings.DATABASE_URL,
      AUTH_ISSUER_URL: settings.AUTH_ISSUER_URL,
      AGENT_MASTER_KEY: keys.AGENT_MASTER_KEY,
    };
    for (const [variable, value] of Object.entries(required)) {
      if (value === undefined)
        throw new ConfigError(variable, 'is required when NODE_ENV=production');
    }
  }
  if (settings.HTTP_HEADERS_TIMEOUT_MS > settings.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      'must not be longer than HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  const environment = Object.fromEntries(
    Object.entries(env).filter(([name]) => !masterKeyVariables.has(name)),
  );
  // The writes after validation: the source of the realm file's placeholders, keys excepted, and the
  // public origin that follows PORT unless it is set.
  Object.assign(settings, {
    environment: Object.freeze(environment),
    ...(isSet(env.PUBLIC_BASE_URL) ? {} : { PUBLIC_BASE_URL: `http://localhost:${settings.PORT}` }),
  });
  return deepFrozen(settings);
}

/** Key material: validated with the settings, read by the secrets module only (secrets/master-keys.ts). */
export function loadMasterKeySettings(env: Environment = process.env): MasterKeySettings {
  return deepFrozen(validated(MasterKeySettings, env));
}

const masterKeyVariables = new Set(variablesOf(MasterKeySettings));

/** Blank counts as unset, as everywhere in the settings. */
function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** A settings class from the variables it declares as they are set, blank ones counting as unset. */
function validated<T extends object>(settingsClass: new () => T, env: Environment): T {
  const given: Record<string, string> = {};
  for (const name of variablesOf(settingsClass)) {
    const value = env[name];
    if (isSet(value)) given[name] = value.trim();
  }
  const settings = plainToInstance(settingsClass, given);
  const [error] = validateSync(settings, { stopAtFirstError: true });
  if (error !== undefined) {
    const message = Object.values(error.constraints ?? {})[0] ?? 'is not valid';
    // The constraint message starts with the variable's name, which ConfigError adds itself.
    throw new ConfigError(error.property, message.replace(new RegExp(`^${error.property} `), ''));
  }
  return settings;
}

function deepFrozen<T extends object>(settings: T): T {
  for (const value of Object.values(settings)) {
    if (typeof value === 'object' && value !== null) Object.freeze(value);
  }
  return Object.freeze(settings);
}
