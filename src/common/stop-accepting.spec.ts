import { createServer, request, Agent, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { stopAccepting } from './stop-accepting.js';

function get(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, agent, path: '/' }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('stopping to accept connections', () => {
  let server: Server;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeEach(async () => {
    server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
  });

  it('keeps an idle keep-alive connection serving and refuses new ones', async () => {
    expect(await get(port, agent)).toBe(200);
    stopAccepting(server);
    // The same (idle) connection still carries a request.
    expect(await get(port, agent)).toBe(200);
    await expect(get(port, new Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it("is needed: http.Server's own close cuts the idle connection", async () => {
    expect(await get(port, agent)).toBe(200);
    expect(agent.freeSockets[`127.0.0.1:${port}:`]).toHaveLength(1);
    server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(agent.freeSockets[`127.0.0.1:${port}:`] ?? []).toHaveLength(0);
  });
});
