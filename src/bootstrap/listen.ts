import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type AppConfig } from '../config/app-config.js';

/** Opens the public port (PORT, on HOST when set); answers the port it listens on. */
export async function listen(
  app: NestExpressApplication,
  server: Server,
  config: AppConfig,
): Promise<number> {
  if (config.host === undefined) await app.listen(config.port);
  else await app.listen(config.port, config.host);
  return (server.address() as AddressInfo).port;
}
