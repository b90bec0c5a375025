import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readOrCreateFile } from '../common/create-file-once.js';
import { jwkThumbprint } from '../jose/jwk.js';

export interface PublicJwk {
  kid: string;
  kty: 'RSA';
  alg: 'RS256';
  use: 'sig';
  n: string;
  e: string;
}

/** The issuer's RSA signing key (tokens) and HMAC secret (refresh tokens), persisted in DATA_DIR. */
export class IssuerKeys {
  readonly signingKid: string;
  readonly refreshKid: string;

  /** The public half, for verifying our own tokens (userinfo, id_token_hint). */
  readonly verificationKey: KeyObject;

  private constructor(
    readonly signingKey: KeyObject,
    readonly publicJwk: PublicJwk,
    readonly refreshSecret: Uint8Array,
  ) {
    this.signingKid = publicJwk.kid;
    this.verificationKey = createPublicKey(signingKey);
    this.refreshKid = createHash('sha256').update(refreshSecret).digest('base64url').slice(0, 22);
  }

  /** Loads the keys from `directory`, creating them on first use (0600, created once even under races). */
  static loadOrCreate(directory: string): IssuerKeys {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const signingPem = readOrCreateFile(join(directory, 'signing-key.pem'), () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
    );
    const refreshSecret = Buffer.from(
      readOrCreateFile(
        join(directory, 'refresh-secret'),
        () => `${randomBytes(64).toString('base64')}\n`,
      ).trim(),
      'base64',
    );
    const signingKey = createPrivateKey(signingPem);
    const jwk = createPublicKey(signingKey).export({ format: 'jwk' });
    if (jwk.n === undefined || jwk.e === undefined)
      throw new Error('The issuer signing key is not RSA');
    // RFC 7638 thumbprint as the key id: stable for the key, unique across keys.
    const kid = jwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e });
    return new IssuerKeys(
      signingKey,
      { kid, kty: 'RSA', alg: 'RS256', use: 'sig', n: jwk.n, e: jwk.e },
      refreshSecret,
    );
  }
}
