import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { ConfigError } from '../config/load-settings.js';
import { type Settings } from '../config/settings.js';

/** Nest's `listen` hands what follows the port to Node's `server.listen(port, host, backlog)`. */
type ListenWithBacklog = (
  port: number,
  host: string | undefined,
  backlog: number,
) => Promise<unknown>;

/**
 * Opens the public port (PORT, on HOST when set); answers the port it listens on. The kernel holds as
 * many connections not yet accepted as the service takes at once (HTTP_MAX_CONNECTIONS, capped by
 * net.core.somaxconn): with Node's default of 511, a burst of connects overflows that queue on a busy
 * machine and is reset before admission control can answer it (docs/operations.md).
 */
export async function listen(
  app: NestExpressApplication,
  server: Server,
  settings: Settings,
): Promise<number> {
  try {
    const listenWithBacklog = app.listen.bind(app) as unknown as ListenWithBacklog;
    await listenWithBacklog(settings.PORT, settings.listenHost, settings.HTTP_MAX_CONNECTIONS);
  } catch (error) {
    throw portRefusal('PORT', settings.PORT, settings.listenHost, error);
  }
  return (server.address() as AddressInfo).port;
}

/**
 * Opens and closes a port before the slow steps (the database, migrations), so that a taken one is said
 * at once; the real opening later still reports a port taken in between.
 */
export async function checkPortFree(
  variable: string,
  port: number,
  host: string | undefined,
): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  }).catch((error: unknown) => {
    throw portRefusal(variable, port, host, error);
  });
}

/**
 * A port that cannot be opened as the one-line start failure naming its setting (a ConfigError), when
 * the reason is the usual one: taken, or reserved to root; anything else as it is.
 */
export function portRefusal(
  variable: string,
  port: number,
  host: string | undefined,
  error: unknown,
): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `port ${port} on ${host ?? 'every interface'}`;
  if (code === 'EADDRINUSE')
    return new ConfigError(
      variable,
      `${where} is already in use (another process, or this service started twice): stop it or choose another ${variable}`,
    );
  if (code === 'EACCES')
    return new ConfigError(
      variable,
      `${where} may not be opened by this user (ports below 1024 need privileges): choose another ${variable}`,
    );
  return error;
}
