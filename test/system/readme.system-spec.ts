import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { browserLogin } from '../support/login-providers.js';
import { passwordGrant, call } from '../support/test-service.js';
import { AppProcess, repositoryRoot } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { freePort } from './support/ports.js';

/**
 * The README's walk-through as a newcomer runs it: its curl block, unchanged but for the origin and the
 * webhook receiver's port, in bash from the repository root, against `node dist/src/main.js` in local
 * mode on a fresh DATA_DIR. It has to leave nothing behind: no receiver, no subscription. The test is
 * the person's browser too: it opens the link the demo wallet prints and logs in as erika.
 */

/** The first bash block under "Walk-through with curl". */
function walkThrough(): string {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Walk-through with curl'));
  const start = section.indexOf('```bash\n') + '```bash\n'.length;
  return section.slice(start, section.indexOf('\n```', start));
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the README walk-through', () => {
  const cleanup = new Cleanup();
  let app: AppProcess;
  let receiverPort: number;
  let output: string;
  let exitCode: number | null;
  let walletFile: string;
  let login: Promise<string> | undefined;

  beforeAll(async () => {
    const port = await freePort();
    app = await AppProcess.start(
      {
        name: 'readme',
        port,
        cwd: cleanup.tempDir('readme-cwd'),
        env: {
          PUBLIC_BASE_URL: `http://localhost:${port}`,
          DATA_DIR: cleanup.tempDir('readme-data'),
        },
      },
      cleanup,
      120_000,
    );
    receiverPort = await freePort();
    const block = walkThrough();
    expect(block).toContain('BASE=http://localhost:8080\n');
    expect(block).toContain('.listen(9000,');
    const script = block
      .replace('BASE=http://localhost:8080\n', `BASE=http://localhost:${port}\n`)
      .replaceAll('127.0.0.1:9000/', `127.0.0.1:${receiverPort}/`)
      .replace('.listen(9000,', `.listen(${receiverPort},`);
    walletFile = `${cleanup.tempDir('readme-wallet')}/wallet.json`;
    // Its own process group, so that whatever it left running can be stopped by the group's id.
    const shell = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // The demo wallet's key and credentials, apart from a person's own tries.
        WALLET_FILE: walletFile,
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.add('stop what the walk-through left running', () => {
      try {
        process.kill(-shell.pid!, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    });
    const chunks: Buffer[] = [];
    shell.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // The person opens the link the wallet prints, logs in and is sent back to the wallet's loopback.
      const link = /^(http:\/\/\S+\/authorize\?\S+)\n/m.exec(Buffer.concat(chunks).toString())?.[1];
      if (link === undefined || login !== undefined) return;
      login = browserLogin(link, 'erika', 'erika', 'http://127.0.0.1:').then(async (back) => {
        const answer = await fetch(back);
        return `${answer.status} ${await answer.text()}`;
      });
      // A failed login would leave the wallet waiting: end the walk-through instead.
      login = login.catch((error: unknown) => {
        process.kill(-shell.pid!, 'SIGKILL');
        return `the login failed: ${String(error)}`;
      });
    });
    shell.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The pipes close when the shell and its background receiver are both gone.
    exitCode = await new Promise((resolve) => shell.on('close', (code) => resolve(code)));
    output = Buffer.concat(chunks).toString('utf8');
  }, 240_000);

  afterAll(() => cleanup.run(), 60_000);

  it('runs to its end without an error', () => {
    expect({ exitCode, output }).toMatchObject({ exitCode: 0 });
  });

  it('answers each step as the README shows', () => {
    expect(output).toMatch(/"id":"acme","label":"ACME Corp","imageUrl":null,"did":"did:key:z6Mk/);
    expect(output).toMatch(/"id":"did:key:z6Mk\w+","public":true,"verkey":"\w+","method":"key"/);
    expect(output).toContain('"verified":true');
    expect(output).toContain('"code":"CREDENTIAL_NOT_VERIFIED"');
    expect(output).toContain('"detail":"the credential is revoked"');
    // curl prints no newline after a body: lines run together, the receiver's own line ends with one.
    expect(output).toMatch(/verified [0-9a-f-]{36} webhook\.test\n/);
    expect(output).toMatch(/"eventType":"webhook\.test","state":"delivered"/);
    expect(output).toContain('"code":"TENANT_NOT_FOUND"');
    // The OpenID4VCI step: an offer with its link and transaction code, its QR code, its state.
    expect(output).toMatch(
      /"credentialOfferUri":"openid-credential-offer:\/\/\?credential_offer_uri=/,
    );
    expect(output).toMatch(/"txCode":"\d{6}"/);
    expect(output).toContain(
      'received an SD-JWT VC: https://globex.example/credentials/alumni from http://',
    );
    // The wallet checked the credential's x5c chain up to the authority root the walk-through fetched.
    expect(output).toMatch(
      /^signed by CN=globex through x5c \(chain to the trusted root verified\)$/m,
    );
    expect(readFileSync('/tmp/authority.pem', 'utf8')).toMatch(
      /^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n/,
    );
    rmSync('/tmp/authority.pem');
    expect(output).toMatch(
      /"status":"issued","credentialConfigurationId":"Alumni","format":"dc\+sd-jwt","doctype":null,"credentialIds":\["urn:uuid:/,
    );
    expect(readFileSync('/tmp/alumni-offer.png').subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    rmSync('/tmp/alumni-offer.png');
    // The OpenID4VP step: an x509_hash request, its QR code, the wallet's check and answer, the outcome.
    expect(output).toMatch(/"clientId":"x509_hash:[\w-]{43}"/);
    expect(output).toMatch(
      /"authorizationRequestUri":"openid4vp:\/\/\?client_id=x509_hash%3A[\w-]{43}&request_uri=/,
    );
    expect(output).toMatch(
      /^request signed by CN=globex through x5c \(chain to the trusted root verified\)$/m,
    );
    expect(output).toContain('the verifier answered 200: {}');
    expect(output).toMatch(/"status":"verified"/);
    expect(output).toMatch(/"claims":\{"alumni_of":"Globex Academy"\}/);
    expect(readFileSync('/tmp/alumni-request.png').subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    rmSync('/tmp/alumni-request.png');
    // The mdoc step: demo's mDL received through its IACA, globex's answer holds the two elements asked.
    expect(output).toContain('received an mdoc: org.iso.18013.5.1.mDL from http://');
    expect(output).toMatch(
      /^signed by C=XX, CN=demo through x5chain \(chain to the trusted root verified\)$/m,
    );
    expect(output).toMatch(/^201$/m);
    expect(output).toMatch(
      /"status":"verified","responseMode":"direct_post\.jwt"[^\n]*"format":"mso_mdoc"[^\n]*"claims":\{"org\.iso\.18013\.5\.1":\{"family_name":"Mustermann","birth_date":"1963-08-12"\}\}/,
    );
    // The person's login: the demo wallet took the code at its loopback and received Erika's badge.
    expect(output).toMatch(
      /^http:\/\/localhost:\d+\/ctrl\/oid4vci\/demo\/authorize\?request_uri=urn%3A[^&\s]+&client_id=agent-service-demo-wallet$/m,
    );
    expect(output).toContain(
      'received an SD-JWT VC: https://acme.example/credentials/employee-badge from http://',
    );
    expect(output).toMatch(
      /^signed by CN=demo through x5c \(chain to the trusted root verified\)$/m,
    );
    // Tenant deleted, credential revoked, subscription deleted.
    expect(output.match(/(?<![\d])204\n/g)).toHaveLength(3);
  });

  it('gives the person who logged in a badge with her claims', async () => {
    expect(await login).toBe('200 Back in the demo wallet: you may close this tab.');
    const { credentials } = JSON.parse(readFileSync(walletFile, 'utf8')) as {
      credentials: { vct: string; credential: string }[];
    };
    const badge = credentials.find((entry) => entry.vct.endsWith('/employee-badge'));
    const disclosed = badge!.credential
      .split('~')
      .slice(1, -1)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown[]);
    expect(Object.fromEntries(disclosed.map(([, name, value]) => [name, value]))).toEqual({
      given_name: 'Erika',
      employee_id: 'erika',
    });
  });

  it('leaves no receiver running and no subscription retrying', async () => {
    expect(await portAnswers(receiverPort)).toBe(false);
    const { access_token: token } = await passwordGrant(app.url, 'admin', 'admin');
    const subscriptions = await call<{ totalElements: number }>(
      app.url,
      '/ctrl/api/v1.0/webhooks',
      {
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'globex' },
      },
    );
    expect(subscriptions.status).toBe(200);
    expect(subscriptions.body.totalElements).toBe(0);
  });
});
