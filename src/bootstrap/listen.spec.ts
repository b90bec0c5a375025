import { ConfigError } from '../config/load-settings.js';
import { createServer, type AddressInfo } from 'node:net';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Server } from 'node:http';
import { type Settings } from '../config/settings.js';
import { checkPortFree, listen, portRefusal } from './listen.js';

const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });

describe(portRefusal.name, () => {
  it('names the setting of a taken port, in one line', () => {
    const refusal = portRefusal('METRICS_PORT', 9464, '127.0.0.1', failure('EADDRINUSE'));
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).variable).toBe('METRICS_PORT');
    expect((refusal as ConfigError).message).toBe(
      'METRICS_PORT: port 9464 on 127.0.0.1 is already in use (another process, or this service started twice): stop it or choose another METRICS_PORT',
    );
  });

  it('names the setting of a port reserved to root', () => {
    const refusal = portRefusal('PORT', 80, undefined, failure('EACCES'));
    expect((refusal as ConfigError).message).toMatch(
      /^PORT: port 80 on every interface may not be opened/,
    );
  });

  it('leaves any other failure as it is', () => {
    const other = failure('EADDRNOTAVAIL');
    expect(portRefusal('PORT', 8080, '10.9.9.9', other)).toBe(other);
  });
});

describe(checkPortFree.name, () => {
  it('refuses a port another process holds, naming the setting, and lets a free one be', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      await expect(checkPortFree('METRICS_PORT', port, '127.0.0.1')).rejects.toThrow(
        `METRICS_PORT: port ${port} on 127.0.0.1 is already in use`,
      );
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    await expect(checkPortFree('METRICS_PORT', port, '127.0.0.1')).resolves.toBeUndefined();
  });
});

describe(listen.name, () => {
  it("asks the kernel to hold as many connections as the service takes at once, not Node's 511", async () => {
    const calls: unknown[][] = [];
    const app = {
      listen: (...args: unknown[]) => {
        calls.push(args);
        return Promise.resolve();
      },
    } as unknown as NestExpressApplication;
    const server = { address: () => ({ port: 8080 }) } as unknown as Server;
    const settings = { PORT: 8080, listenHost: '127.0.0.1', HTTP_MAX_CONNECTIONS: 3000 };
    expect(await listen(app, server, settings as Settings)).toBe(8080);
    expect(calls).toEqual([[8080, '127.0.0.1', 3000]]);
  });
});
