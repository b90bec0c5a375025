// @ts-check
/**
 * A demo wallet for the README's walk-through: receives SD-JWT VCs and mdocs (mso_mdoc) over OpenID4VCI
 * and presents them over OpenID4VP with nothing but the links, through OWF's wallet libraries
 * (@openid4vc/openid4vci and @openid4vc/openid4vp, the ones Credo uses), @sd-jwt/core and @owf/mdoc
 * (scripts/demo-wallet-mdoc.mjs: an mdoc's answer is a DeviceResponse of the asked elements only, over
 * the session transcript of OpenID4VP 1.0 appendix B.2.6.1). Its key and credentials lie in a plain JSON
 * file ($WALLET_FILE, default /tmp/agent-service-demo-wallet.json): for trying the service, never for
 * real credentials. With `--trust <root PEM>` it checks X.509 `x5c` chains (HAIP 1.0) up to that
 * root: the issuer's of a credential it receives (an mdoc's `x5chain` up to its IACA), the verifier's of
 * an x509_hash or x509_san_dns request. Its one key is P-256: ES256 proofs, key binding, device key.
 *
 *   npm run --silent wallet -- receive 'openid-credential-offer://...' [--tx-code 493021] [--trust root.pem]
 *     (an offer with the authorization_code grant: it prints a link to log in at, in a browser)
 *   npm run --silent wallet -- present 'openid4vp://...' [--trust root.pem]
 *   npm run --silent wallet -- list
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  clientAuthenticationAnonymous,
  clientAuthenticationNone,
  HashAlgorithm,
  setGlobalConfig,
} from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { Openid4vpClient } from '@openid4vc/openid4vp';
import { base58 } from '@scure/base';
import {
  CompactEncrypt,
  CompactSign,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
} from 'jose';
import { demoWalletClientId, tokenByLogin } from './demo-wallet-login.mjs';
import { checkMdoc, presentMdoc } from './demo-wallet-mdoc.mjs';
import { presentSdJwt } from './demo-wallet-sd-jwt.mjs';
import { certificateOf, leafJwk, sanNames, signerOf, trustedLeaf } from './demo-wallet-x509.mjs';

const walletFile = process.env.WALLET_FILE ?? '/tmp/agent-service-demo-wallet.json';
// Local mode serves plain http on localhost; a real wallet insists on https.
setGlobalConfig({ allowInsecureUrls: true });

/** @typedef {{ issuer: string, vct?: string, format?: string, doctype?: string, credential: string }} Held */
/** @typedef {{ privateJwk: import('jose').JWK, credentials: Held[] }} WalletState */

/** @returns {Promise<WalletState>} */
async function openWallet() {
  if (existsSync(walletFile)) return JSON.parse(readFileSync(walletFile, 'utf8'));
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const state = { privateJwk: await exportJWK(privateKey), credentials: [] };
  saveWallet(state);
  return state;
}

/** @param {WalletState} state */
function saveWallet(state) {
  writeFileSync(walletFile, JSON.stringify(state, null, 2), { mode: 0o600 });
}

/** @param {import('jose').JWK} jwk */
const publicOf = ({ kty, crv, x, y }) => ({ kty, crv, x, y });

/** @param {ArrayBuffer | Uint8Array | string} data */
const sha256 = (data) =>
  createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();

/** @param {WalletState} state @param {string} [trust] the root's PEM file */
function callbacks(state, trust) {
  return {
    fetch,
    /** The leaf's names, for an x509_san_dns client id (OpenID4VP 1.0 §5.9.3). @param {string} der */
    getX509CertificateMetadata: (der) => ({
      sanDnsNames: sanNames(certificateOf(der), 'dns'),
      sanUriNames: sanNames(certificateOf(der), 'url'),
    }),
    /** @param {Uint8Array} data @param {string} alg */
    hash: (data, alg) => {
      if (alg !== HashAlgorithm.Sha256) throw new Error(`unexpected hash ${alg}`);
      return new Uint8Array(sha256(data));
    },
    /** @param {number} length */
    generateRandom: (length) => new Uint8Array(randomBytes(length)),
    clientAuthentication: clientAuthenticationAnonymous(),
    /** @param {any} _signer @param {{ header: any, payload: any }} jwt */
    signJwt: async (_signer, { header, payload }) => {
      const key = await importJWK(state.privateJwk, 'ES256');
      const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader(header)
        .sign(key);
      return { jwt, signerJwk: /** @type {any} */ (publicOf(state.privateJwk)) };
    },
    /**
     * A request object: an x509_hash or x509_san_dns client's through its `x5c` chain up to the trusted
     * root (the library then matches the client id to the leaf), a `decentralized_identifier:` client's
     * through its did:key alone.
     */
    verifyJwt: async (/** @type {any} */ signer, /** @type {any} */ jwt) => {
      if (signer.method !== 'x5c' && signer.method !== 'did') return { verified: false };
      const [alg, jwk] =
        signer.method === 'x5c'
          ? ['ES256', await leafJwk(await trustedLeaf(signer.x5c, trust))]
          : ['EdDSA', didKeyJwk(signer.didUrl.split('#')[0])];
      try {
        await compactVerify(jwt.compact, await importJWK(jwk, alg), { algorithms: [alg] });
        return { verified: true, signerJwk: /** @type {any} */ (jwk) };
      } catch {
        return { verified: false };
      }
    },
    /** @param {any} encryptor @param {string} data */
    encryptJwe: async (encryptor, data) => {
      const key = await importJWK(encryptor.publicJwk, 'ECDH-ES');
      const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
        .setProtectedHeader({ alg: 'ECDH-ES', enc: encryptor.enc, kid: encryptor.publicJwk.kid })
        .setKeyManagementParameters({
          ...(encryptor.apu ? { apu: Buffer.from(encryptor.apu, 'base64url') } : {}),
          ...(encryptor.apv ? { apv: Buffer.from(encryptor.apv, 'base64url') } : {}),
        })
        .encrypt(key);
      return { jwe, encryptionJwk: encryptor.publicJwk };
    },
  };
}

/** The Ed25519 key of a did:key (multicodec 0xed01 after the base58btc `z`). */
function didKeyJwk(did) {
  const bytes = base58.decode(did.replace(/^did:key:z/, ''));
  if (bytes[0] !== 0xed || bytes[1] !== 0x01) throw new Error(`${did} is not an Ed25519 did:key`);
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes.subarray(2)).toString('base64url') };
}

/** @param {string} credential */
const payloadOf = (credential) =>
  JSON.parse(Buffer.from(credential.split('~')[0].split('.')[1], 'base64url').toString('utf8'));

async function receive(link, txCode, trust) {
  const state = await openWallet();
  const credentialOffer = await new Openid4vciClient({
    callbacks: /** @type {any} */ (callbacks(state)),
  }).resolveCredentialOffer(link);
  const byLogin = credentialOffer.grants?.authorization_code !== undefined;
  // The authorization code flow's public client names itself; the pre-authorized code needs no client.
  const client = new Openid4vciClient({
    callbacks: /** @type {any} */ ({
      ...callbacks(state),
      ...(byLogin
        ? { clientAuthentication: clientAuthenticationNone({ clientId: demoWalletClientId }) }
        : {}),
    }),
  });
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const [configurationId] = credentialOffer.credential_configuration_ids;
  const token = byLogin
    ? await tokenByLogin(client, credentialOffer, issuerMetadata, configurationId)
    : await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer,
        issuerMetadata,
        txCode,
      });
  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata });
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: configurationId,
    signer: {
      method: 'jwk',
      publicJwk: /** @type {any} */ (publicOf(state.privateJwk)),
      alg: 'ES256',
    },
    nonce,
  });
  const answer = await client.retrieveCredentials({
    issuerMetadata,
    credentialConfigurationId: configurationId,
    proofs: { jwt: [jwt] },
    accessToken: token.accessTokenResponse.access_token,
    dpop: token.dpop,
  });
  const { format } =
    issuerMetadata.credentialIssuer.credential_configurations_supported[configurationId];
  for (const { credential } of /** @type {any[]} */ (answer.credentialResponse.credentials)) {
    if (typeof credential !== 'string') {
      console.log('received a credential this demo wallet does not keep (SD-JWT VCs and mdocs)');
      continue;
    }
    if (format === 'mso_mdoc') {
      const { doctype, signer } = await checkMdoc(credential, trust); // throws, keeping nothing
      const issuer = credentialOffer.credential_issuer;
      state.credentials.push({ issuer, format, doctype, credential });
      console.log(`received an mdoc: ${doctype} from ${issuer}`);
      console.log(signer);
      continue;
    }
    const { iss, vct } = payloadOf(credential);
    const signer = await signerOf(credential, iss, trust); // throws, keeping nothing, if it fails
    state.credentials.push({ issuer: iss, vct, credential });
    console.log(`received an SD-JWT VC: ${vct} from ${iss}`);
    console.log(signer);
  }
  saveWallet(state);
}

async function present(link, trust) {
  const state = await openWallet();
  const all = /** @type {any} */ (callbacks(state, trust));
  const client = new Openid4vpClient({ callbacks: all });
  const parsed = client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: link });
  const resolved = await client.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: /** @type {any} */ (parsed.params),
  });
  const request = /** @type {any} */ (resolved.authorizationRequestPayload);
  const query = /** @type {any} */ (resolved.dcql?.query);
  console.log(
    `${request.client_id} asks for ${JSON.stringify(query.credentials.map((q) => q.id))}`,
  );
  const signer = /** @type {any} */ (resolved.jar?.signer);
  console.log(
    signer?.method === 'x5c'
      ? `request signed by ${certificateOf(signer.x5c[0]).subject} through x5c (chain to the trusted root verified)`
      : `request signed by ${signer?.didUrl.split('#')[0]} (verified through the did:key alone)`,
  );
  /** @type {Record<string, string[]>} */
  const vpToken = {};
  for (const credentialQuery of query.credentials) {
    if (credentialQuery.format === 'mso_mdoc') {
      const doctype = credentialQuery.meta?.doctype_value;
      const held = state.credentials.find((entry) => entry.doctype === doctype);
      if (held === undefined) throw new Error(`no ${doctype} mdoc in the wallet`);
      vpToken[credentialQuery.id] = [
        await presentMdoc(/** @type {any} */ (held), credentialQuery, request, state.privateJwk),
      ];
      continue;
    }
    const vcts = credentialQuery.meta?.vct_values;
    const held = state.credentials.find(
      (entry) => entry.vct !== undefined && (vcts === undefined || vcts.includes(entry.vct)),
    );
    if (held === undefined)
      throw new Error(`no credential in the wallet for ${credentialQuery.id}`);
    vpToken[credentialQuery.id] = [
      await presentSdJwt(held.credential, credentialQuery, request, state.privateJwk),
    ];
  }
  const jarm = request.response_mode === 'direct_post.jwt' && {
    encryption: { nonce: randomBytes(16).toString('base64url') },
    serverMetadata: {
      authorization_encryption_alg_values_supported: ['ECDH-ES'],
      authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
    },
  };
  const response = await client.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request,
    authorizationResponsePayload: { vp_token: vpToken },
    ...(jarm ? { jarm: /** @type {any} */ (jarm) } : {}),
  });
  const submitted = await client.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request,
    authorizationResponsePayload: response.authorizationResponsePayload,
    ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
  });
  console.log(
    `the verifier answered ${submitted.response.status}: ${await submitted.response.text()}`,
  );
}

const [command, link, ...rest] = process.argv.slice(2);
/** @param {string} name */
const option = (name) => (rest.includes(name) ? rest[rest.indexOf(name) + 1] : undefined);
try {
  if (command === 'receive' && link !== undefined) {
    await receive(link, option('--tx-code'), option('--trust'));
  } else if (command === 'present' && link !== undefined) {
    await present(link, option('--trust'));
  } else if (command === 'list') {
    const { credentials } = await openWallet();
    for (const { vct, doctype, issuer } of credentials)
      console.log(`${vct ?? doctype} from ${issuer}`);
  } else {
    console.error(
      'usage: demo-wallet receive <offer link> [--tx-code CODE] [--trust ROOT_PEM] | present <request link> [--trust ROOT_PEM] | list',
    );
    process.exitCode = 2;
  }
} catch (error) {
  console.error(`the wallet failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
