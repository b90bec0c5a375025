import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import {
  addressProblem,
  guardedRequest,
  OutboundError,
  refuseOwnPort,
  urlProblem,
} from './outbound.js';

const strict = { allowPrivate: false };
const relaxed = { allowPrivate: true };
const local = { allowPrivate: 'loopback' as const };
const limits = { timeoutMs: 2_000, maxBytes: 1_024 };

describe(addressProblem.name, () => {
  it.each([
    ['93.184.215.14', undefined, undefined],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', undefined, undefined],
    ['127.0.0.1', 'loopback', undefined],
    ['::1', 'loopback', undefined],
    ['::ffff:127.0.0.1', 'loopback', undefined],
    ['10.1.2.3', 'private', undefined],
    ['172.16.0.1', 'private', undefined],
    ['192.168.1.1', 'private', undefined],
    ['fd12:3456::1', 'uniqueLocal', undefined],
    ['100.64.0.1', 'carrierGradeNat', undefined],
    ['169.254.169.254', 'linkLocal', 'linkLocal'],
    ['::ffff:169.254.169.254', 'linkLocal', 'linkLocal'],
    ['fe80::1', 'linkLocal', 'linkLocal'],
    ['100.100.100.200', 'metadata', 'metadata'],
    ['fd00:ec2::254', 'metadata', 'metadata'],
    ['0.0.0.0', 'unspecified', 'unspecified'],
    ['224.0.0.1', 'multicast', 'multicast'],
    ['255.255.255.255', 'broadcast', 'broadcast'],
    // Only globally reachable unicast: the special-purpose blocks are refused whatever their range name.
    ['0.1.2.3', 'unspecified', 'unspecified'],
    ['240.0.0.1', 'reserved', 'reserved'],
    ['198.18.0.1', 'reserved', 'reserved'],
    ['192.0.2.1', 'reserved', 'reserved'],
    ['198.51.100.1', 'reserved', 'reserved'],
    ['203.0.113.1', 'reserved', 'reserved'],
    ['192.0.0.8', 'reserved', 'reserved'],
    ['192.88.99.1', 'reserved', 'reserved'],
    ['2a00:1450:4001:82a::200e', undefined, undefined],
    ['::a9fe:a9fe', 'IPv4-compatible', 'IPv4-compatible'],
    ['::7f00:1', 'IPv4-compatible', 'IPv4-compatible'],
    ['::5db8:d70e', 'IPv4-compatible', 'IPv4-compatible'],
    ['::ffff:93.184.215.14', undefined, undefined],
    ['::ffff:0:7f00:1', 'rfc6145', 'rfc6145'],
    ['2001:db8::1', 'reserved', 'reserved'],
    ['3fff::1', 'reserved', 'reserved'],
    ['2001:2::1', 'benchmarking', 'benchmarking'],
    ['2001:10::1', 'Orchid', 'Orchid'],
    ['100::1', 'discard', 'discard'],
    ['fec0::1', 'deprecatedSiteLocal', 'deprecatedSiteLocal'],
    ['4000::1', 'outside 2000::/3', 'outside 2000::/3'],
    ['5f00::1', 'segmentRouting', 'segmentRouting'],
    ['ff02::1', 'multicast', 'multicast'],
    ['::', 'unspecified', 'unspecified'],
    // Addresses that carry an IPv4 address: NAT64 by that address, 6to4 and Teredo never.
    ['64:ff9b::5db8:d70e', undefined, undefined],
    ['64:ff9b::a9fe:a9fe', 'linkLocal', 'linkLocal'],
    ['64:ff9b::7f00:1', 'loopback', 'loopback'],
    ['64:ff9b::a00:1', 'private', 'private'],
    ['64:ff9b:1::5db8:d70e', 'rfc6052', 'rfc6052'],
    ['2002:5db8:d70e::1', '6to4', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', 'teredo'],
  ])('%s: strict %s, relaxed %s', (address, strictWord, relaxedWord) => {
    const check = (problem: string | undefined, word: string | undefined) =>
      word === undefined ? expect(problem).toBeUndefined() : expect(problem).toContain(word);
    check(addressProblem(address, strict), strictWord);
    check(addressProblem(address, relaxed), relaxedWord);
  });
});

describe(`${addressProblem.name} in local mode`, () => {
  it.each([
    ['93.184.215.14', undefined],
    ['127.0.0.1', undefined],
    ['127.8.9.10', undefined],
    ['::1', undefined],
    ['::ffff:127.0.0.1', undefined],
    ['10.1.2.3', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
  ])('%s: %s', (address, word) => {
    const problem = addressProblem(address, local);
    if (word === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(word);
  });
});

describe(urlProblem.name, () => {
  it('takes https only, plain http when private targets are allowed, never credentials', () => {
    expect(urlProblem('https://status.example/1', strict)).toBeUndefined();
    expect(urlProblem('http://status.example/1', strict)).toContain('only https');
    expect(urlProblem('http://status.example/1', relaxed)).toBeUndefined();
    expect(urlProblem('ftp://status.example/1', relaxed)).toContain('only https');
    expect(urlProblem('https://user:pw@status.example/1', strict)).toContain('credentials');
    expect(urlProblem('not a url', strict)).toContain('not a URL');
  });

  it('checks an address literal before any connection', () => {
    expect(urlProblem('https://127.0.0.1/x', strict)).toContain('loopback');
    expect(urlProblem('https://[::1]/x', strict)).toContain('loopback');
    expect(urlProblem('https://[::ffff:a9fe:a9fe]/x', relaxed)).toContain('linkLocal');
    expect(urlProblem('http://169.254.169.254/latest/meta-data', relaxed)).toContain('linkLocal');
    expect(urlProblem('https://[::a9fe:a9fe]/', strict)).toContain('IPv4-compatible');
    expect(urlProblem('https://[64:ff9b::a9fe:a9fe]/', relaxed)).toContain('linkLocal');
  });

  it("refuses this process's own ports, whatever the host, wherever this machine may be reached", () => {
    const release = refuseOwnPort(5433);
    try {
      for (const policy of [local, relaxed]) {
        expect(urlProblem('http://127.0.0.1:5433/', policy)).toContain('port 5433');
        expect(urlProblem('http://localhost:5433/', policy)).toContain('port 5433');
        expect(urlProblem('https://receiver.example:5433/', policy)).toContain('port 5433');
        expect(urlProblem('http://127.0.0.1:5434/', policy)).toBeUndefined();
      }
      // Production reaches no address of this machine anyway; a public receiver may use any port.
      expect(urlProblem('https://receiver.example:5433/', strict)).toBeUndefined();
      // A target the operator configured (the bundled realm in local mode) may be this process.
      const configured = { allowPrivate: true, ownPortsAllowed: true } as const;
      expect(urlProblem('http://127.0.0.1:5433/', configured)).toBeUndefined();
    } finally {
      release();
    }
    expect(urlProblem('http://127.0.0.1:5433/', local)).toBeUndefined();
  });
});

describe(guardedRequest.name, () => {
  let server: Server;
  let origin: string;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === '/big') return void response.end(Buffer.alloc(4_096, 'x'));
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/small' });
        return void response.end();
      }
      if (request.url === '/silent') return; // never answers
      if (request.url === '/echo') return void request.pipe(response);
      response.end('small');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads an answer within the limits', async () => {
    const response = await guardedRequest(`${origin}/small`, relaxed, limits);
    expect({ status: response.status, body: response.body.toString() }).toEqual({
      status: 200,
      body: 'small',
    });
  });

  it('does not follow a redirect', async () => {
    const response = await guardedRequest(`${origin}/redirect`, relaxed, limits);
    expect(response.status).toBe(302);
  });

  it('stops reading past the size cap', async () => {
    await expect(guardedRequest(`${origin}/big`, relaxed, limits)).rejects.toThrow(
      'larger than 1024 bytes',
    );
  });

  it('sends a body, and with truncate keeps the start of a long answer instead of failing', async () => {
    const echoed = await guardedRequest(`${origin}/echo`, relaxed, {
      ...limits,
      method: 'POST',
      body: '{"hello":"receiver"}',
    });
    expect(echoed.body.toString()).toBe('{"hello":"receiver"}');
    const cut = await guardedRequest(`${origin}/big`, relaxed, { ...limits, truncate: true });
    expect({ status: cut.status, length: cut.body.length }).toEqual({ status: 200, length: 1024 });
  });

  it('gives up on a silent server after the timeout', async () => {
    await expect(
      guardedRequest(`${origin}/silent`, relaxed, { ...limits, timeoutMs: 200 }),
    ).rejects.toThrow('no complete answer within 200 ms');
  });

  it('gives up on a server that takes the connection but never completes TLS, at the connect timeout', async () => {
    const sockets: Socket[] = [];
    const mute = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const port = (mute.address() as AddressInfo).port;
    try {
      const attempt = guardedRequest(`https://127.0.0.1:${port}/`, relaxed, {
        ...limits,
        timeoutMs: 30_000,
        connectTimeoutMs: 200,
      });
      await expect(attempt).rejects.toThrow('no connection within 200 ms');
      await expect(attempt).rejects.toMatchObject({ failure: 'timeout' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it('keeps the connect timeout apart from the whole request: a connected silent server runs into the latter', async () => {
    const attempt = guardedRequest(`${origin}/silent`, relaxed, {
      ...limits,
      timeoutMs: 1_500,
      connectTimeoutMs: 1_000,
    });
    await expect(attempt).rejects.toThrow('no complete answer within 1500 ms');
    await expect(attempt).rejects.toMatchObject({ failure: 'timeout' });
  });

  it('says what kind of failure it was: refused, connection, too large', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      guardedRequest(`http://127.0.0.1:${port}/`, relaxed, limits),
    ).rejects.toMatchObject({
      failure: 'connection',
    });
    await expect(guardedRequest(`${origin}/small`, strict, limits)).rejects.toMatchObject({
      failure: 'refused',
    });
    await expect(guardedRequest(`${origin}/big`, relaxed, limits)).rejects.toMatchObject({
      failure: 'too-large',
    });
  });

  it('refuses a name that resolves to loopback, without connecting', async () => {
    const before = hits;
    const port = new URL(origin).port;
    const refused = guardedRequest(`https://localhost:${port}/small`, strict, limits);
    await expect(refused).rejects.toBeInstanceOf(OutboundError);
    await expect(refused).rejects.toThrow(/localhost resolves to .* loopback/);
    await expect(guardedRequest(`${origin}/small`, strict, limits)).rejects.toThrow('only https');
    expect(hits).toBe(before);
  });
});
