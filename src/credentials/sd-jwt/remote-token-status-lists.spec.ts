import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Settings } from '../../config/settings.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { type StatusListsService } from '../status/status-lists.service.js';
import {
  issuerMetadataOf,
  statusListTokenOf,
  testIssuer,
} from '../../../test/support/sd-jwt-wallet.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { RemoteTokenStatusLists } from './remote-token-status-lists.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('RemoteTokenStatusLists', () => {
  const routes = new Map<string, Handler>();
  const server = createServer((request, response) => {
    const handler = routes.get(request.url ?? '');
    if (handler === undefined) return response.writeHead(404).end();
    handler(request, response);
  });
  let origin = '';
  let lists: RemoteTokenStatusLists;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    } as unknown as Settings;
    const keys = new CredentialIssuerKeys(settings, {} as TenantKeys, new DidResolution());
    const ours = { listOfUrl: () => undefined } as unknown as StatusListsService;
    lists = new RemoteTokenStatusLists(settings, keys, ours, () => Date.now());
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const plenty = () => AbortSignal.timeout(5_000);

  it('lets a caller whose time ends during the shared read stop waiting, and the read serve the next caller', async () => {
    const issuer = await testIssuer(`${origin}/issuers/shared`);
    const uri = `${origin}/lists/shared`;
    const token = await statusListTokenOf(issuer, uri, [0]);
    routes.set('/lists/shared', (_request, response) => response.end(token));
    const first = new AbortController();
    let answerMetadata: () => void = () => undefined;
    routes.set('/.well-known/jwt-vc-issuer/issuers/shared', (_request, response) => {
      // The first caller's request runs out of time while the list's issuer metadata is read.
      first.abort();
      answerMetadata = () =>
        response
          .writeHead(200, { 'cache-control': 'no-store' })
          .end(JSON.stringify(issuerMetadataOf(issuer)));
    });
    expect(await lists.statusOf({ idx: 0, uri }, issuer.iss, first.signal)).toBe(
      `the status list ${uri} was not read in the time the request has`,
    );
    // Another tenant's request, with time to spare: it joins the read still under way, or reads what
    // it remembered; either way the first caller's deadline is no part of it.
    const other = lists.statusOf({ idx: 0, uri }, issuer.iss, plenty());
    answerMetadata();
    expect(await other).toBe(0);
  });

  it('refuses a Status List Token whose exp is not a number, and names an unaccepted alg by its kind', async () => {
    const issuer = await testIssuer(`${origin}/issuers/odd`);
    routes.set('/.well-known/jwt-vc-issuer/issuers/odd', (_request, response) =>
      response.end(JSON.stringify(issuerMetadataOf(issuer))),
    );
    const uri = `${origin}/lists/odd-exp`;
    const token = await statusListTokenOf(issuer, uri, [0], 1, { exp: '9999999999' });
    routes.set('/lists/odd-exp', (_request, response) => response.end(token));
    expect(await lists.statusOf({ idx: 0, uri }, issuer.iss, plenty())).toBe(
      `the status list ${uri} has an exp that is not a number`,
    );
    const algUri = `${origin}/lists/odd-alg`;
    const header = Buffer.from(
      `{"typ":"statuslist+jwt","alg":${'['.repeat(9_000)}${']'.repeat(9_000)}}`,
    );
    const [, payload, signature] = (await statusListTokenOf(issuer, algUri, [0])).split('.');
    routes.set('/lists/odd-alg', (_request, response) =>
      response.end(`${header.toString('base64url')}.${payload}.${signature}`),
    );
    expect(await lists.statusOf({ idx: 0, uri: algUri }, issuer.iss, plenty())).toBe(
      `the status list ${algUri} is signed with an array, not one of ES256, EdDSA, Ed25519`,
    );
  });
});
