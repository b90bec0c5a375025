import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Settings } from '../config/settings.js';

/** Opens the public port (PORT, on HOST when set); answers the port it listens on. */
export async function listen(
  app: NestExpressApplication,
  server: Server,
  settings: Settings,
): Promise<number> {
  if (settings.listenHost === undefined) await app.listen(settings.PORT);
  else await app.listen(settings.PORT, settings.listenHost);
  return (server.address() as AddressInfo).port;
}
