import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuerKeys } from './issuer-keys.js';

describe('IssuerKeys', () => {
  let directory: string;
  beforeEach(() => (directory = join(mkdtempSync(join(tmpdir(), 'issuer-keys-')), 'issuer')));
  afterEach(() => rmSync(join(directory, '..'), { recursive: true, force: true }));

  it('creates the signing key and refresh secret once (0600) and loads the same ones again', () => {
    const first = IssuerKeys.loadOrCreate(directory);
    const again = IssuerKeys.loadOrCreate(directory);
    expect(again.signingKid).toBe(first.signingKid);
    expect(again.refreshKid).toBe(first.refreshKid);
    expect(readdirSync(directory).sort()).toEqual(['refresh-secret', 'signing-key.pem']);
    for (const file of readdirSync(directory))
      expect(statSync(join(directory, file)).mode & 0o777).toBe(0o600);
  });
});
