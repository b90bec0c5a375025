import { Logger } from '@nestjs/common';
import { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { AppLogger, createRootLogger, type LogLevel } from '../common/logging.js';
import { loadConfig, type AppConfig } from '../config/app-config.js';
import { type KeyVault } from '../secrets/key-vault.js';
import { openKeyVault, type OpenedVault } from '../secrets/master-keys.js';

export interface Configuration {
  readonly config: AppConfig;
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
  const config = loadConfig(env);
  // The keys go from the environment into the vault only; the configuration carries none.
  const { vault, replacedLocalKey } = openKeyVault(env);
  const rootLogger = createRootLogger(logLevel ?? config.logLevel, logDestination);
  const appLogger = new AppLogger(rootLogger);
  Logger.overrideLogger(appLogger);
  return { config, vault, replacedLocalKey, rootLogger, appLogger };
}
