import { Logger } from '@nestjs/common';
import { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { AppLogger, createRootLogger, type LogLevel } from '../common/logging.js';
import { loadSettings } from '../config/load-settings.js';
import { type Settings } from '../config/settings.js';
import { type KeyVault } from '../secrets/key-vault.js';
import { openKeyVault, type OpenedVault } from '../secrets/master-keys.js';

export interface Configuration {
  readonly settings: Settings;
  readonly vault: KeyVault;
  /** For the stored master-key check: the local key file AGENT_MASTER_KEY replaces, if any. */
  readonly replacedLocalKey: OpenedVault['replacedLocalKey'];
  /** The pino logger every line goes through (request logs included). */
  readonly rootLogger: PinoLogger;
  /** Nest's logger over rootLogger. */
  readonly appLogger: AppLogger;
}

/** The validated configuration, the master keys and the logger every later step writes to. */
export function loadConfiguration(
  env: Record<string, string | undefined>,
  logLevel: LogLevel | undefined,
  logDestination: DestinationStream | undefined,
): Configuration {
  const settings = loadSettings(env);
  // The keys go from the environment into the vault only; the configuration carries none.
  const { vault, replacedLocalKey } = openKeyVault(env);
  const rootLogger = createRootLogger(logLevel ?? settings.LOG_LEVEL, logDestination);
  const appLogger = new AppLogger(rootLogger);
  Logger.overrideLogger(appLogger);
  return { settings, vault, replacedLocalKey, rootLogger, appLogger };
}
