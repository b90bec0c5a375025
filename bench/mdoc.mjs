// @ts-check
/**
 * ISO mdoc beside the SD-JWT VC wallet rows (docs/mdoc.md): the credential endpoint issuing an mDL
 * (`mso_mdoc`, revocable) beside a bare baseline doing the same cryptography in memory
 * (bench/mdoc-baseline.mjs), and the OpenID4VP response endpoint verifying an mDL's DeviceResponse
 * (direct_post), built in advance by @auth0/mdl over the OpenID4VPHandover transcript of each request.
 */
import { createHash } from 'node:crypto';
import { DeviceResponse } from '@auth0/mdl';
import { Encoder, Tag } from 'cbor-x';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { load } from './load.mjs';
import { call, proof, wallet } from './oid4vci.mjs';
import { check, row, sampled } from './wallet-rows.mjs';
import { startScript } from './processes.mjs';
import { apiPath, log, settings } from './settings.mjs';

export const mdocCredentialScenario = 'POST {issuer}/credential, mso_mdoc mDL, with x5chain';
export const mdocResponseScenario = 'POST {verifier}/requests/{reference}/response, mso_mdoc mDL';
export const mdocBaselineProcess = 'mdoc baseline';
export const mdocConfigurationId = 'bench-mdl';
const doctype = 'org.iso.18013.5.1.mDL';
const namespace = 'org.iso.18013.5.1';
/** A handful of elements, as an mDL offer would carry them (dates typed full-date by the issuer). */
export const mdocClaims = {
  [namespace]: {
    family_name: 'Mustermann',
    given_name: 'Erika',
    birth_date: '1963-08-12',
    issue_date: '2024-01-15',
    expiry_date: '2034-01-14',
    issuing_country: 'DE',
    document_number: 'D-1234567',
  },
};
/** What the verifier asks and the holder presents. */
const asked = ['family_name', 'given_name', 'birth_date'];
const queryId = 'mdl';
/** Requests each row is measured with: each needs its own offer/token/nonce or its own request. */
const prepared = () => Math.min(900, Math.max(200, Math.round(settings.duration * 150)));

/** CBOR as ISO/IEC 18013-5 writes it: maps kept as maps. */
const cbor = new Encoder({ mapsAsObjects: false, useRecords: false });
const devicePrivateJwk = wallet.privateKey.export({ format: 'jwk' });

/** The mDL configuration (revocable, the default) for `tenantId` unless it has it already. */
async function ensureMdocConfiguration(url, apiToken, tenantId) {
  const response = await fetch(`${url}${apiPath}/oid4vci/credential-configurations/create`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiToken}`,
      'x-tenant-id': tenantId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      id: mdocConfigurationId,
      format: 'mso_mdoc',
      doctype,
      claims: Object.keys(mdocClaims[namespace]).map((element) => ({
        path: [namespace, element],
        mandatory: true,
      })),
      display: [{ name: 'Mobile driving licence', locale: 'en' }],
    }),
  });
  if (!response.ok && response.status !== 409) {
    throw new Error(
      `mDL configuration for ${tenantId}: ${response.status} ${await response.text()}`,
    );
  }
}

/** One mDL issuance up to its credential request (offer, token, nonce, proof): the request. */
async function mdocCredentialRequest(url, apiToken, tenantId) {
  const issuer = `/ctrl/oid4vci/${tenantId}`;
  const offer = await call(url, `${apiPath}/oid4vci/offers`, {
    token: apiToken,
    tenantId,
    json: { credentialConfigurationId: mdocConfigurationId, claims: mdocClaims },
  });
  const code =
    offer.credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'][
      'pre-authorized_code'
    ];
  const { access_token: accessToken } = await call(url, `${issuer}/token`, {
    form: {
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': code,
    },
  });
  const { c_nonce: nonce } = await call(url, `${issuer}/nonce`);
  const jwt = await proof(offer.credentialOffer.credential_issuer, nonce);
  return {
    method: 'POST',
    path: `${issuer}/credential`,
    token: accessToken,
    body: { credential_configuration_id: mdocConfigurationId, proofs: { jwt: [jwt] } },
  };
}

/** `count` of `make()`, a batch of settings.connections at a time: preparation, not measurement. */
async function inBatches(count, make) {
  const made = [];
  for (let n = 0; n < count; n += settings.connections) {
    made.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(settings.connections, count - n) }, make),
      )),
    );
  }
  return made;
}

/** `requests` (each sent once) at `url`, sampled: a row's numbers. */
function measurePrepared(at, apiToken, requests) {
  return sampled(
    at.pids,
    () =>
      load(
        at.url,
        apiToken,
        settings.duration,
        (counter) => requests[counter % requests.length],
        { counter: 0 },
        settings.connections,
        requests.length,
      ),
    at.postgresPid,
  );
}

/** The x5chain (COSE header 33) of an IssuerSigned's issuerAuth: its certificates, base64 DER. */
function x5chainOf(issuerSigned) {
  const decoded = /** @type {Map<string, any>} */ (
    cbor.decode(Buffer.from(issuerSigned, 'base64url'))
  );
  const [, unprotected] = decoded.get('issuerAuth');
  const chain = unprotected.get(33);
  return (Array.isArray(chain) ? chain : [chain]).map((der) => Buffer.from(der).toString('base64'));
}

/**
 * The mdoc credential endpoint at `at`, and with `withBaseline` the bare mdoc baseline.
 * @param {any} context
 * @param {string} tenantId
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function measureMdocIssuance(context, tenantId, at, withBaseline = true) {
  const apiToken = await (at.token ?? context.token)();
  await ensureMdocConfiguration(at.url, apiToken, tenantId);
  const first = await mdocCredentialRequest(at.url, apiToken, tenantId);
  const answer = await call(at.url, first.path, { token: first.token, json: first.body });
  const chain = x5chainOf(answer.credentials[0].credential);
  check(
    context,
    `${at.process}: the mdoc credential row's mDLs carry the document signer's x5chain`,
    `x5chain of ${chain.length} certificate(s)`,
    chain.length > 0,
  );

  const count = prepared();
  log(
    `mdoc [${at.process}]: preparing ${count} mDL credential requests (offer, token, nonce, proof)`,
  );
  const requests = await inBatches(count, () => mdocCredentialRequest(at.url, apiToken, tenantId));
  const issued = await measurePrepared(at, apiToken, requests);
  row(
    context,
    mdocCredentialScenario,
    at.process,
    issued.measured,
    issued.usage,
    issued.otherCpuPercent,
  );
  if (!withBaseline) return;

  const baselineIssuer = 'https://baseline.invalid/issuer';
  const baselineNonce = 'baseline-nonce';
  const started = await startScript('bench/mdoc-baseline.mjs', {
    ISSUER: baselineIssuer,
    NONCE: baselineNonce,
    CLAIMS: JSON.stringify(mdocClaims),
  });
  const baselineRequests = await Promise.all(
    Array.from({ length: 64 }, async () => ({
      method: 'POST',
      path: '/credential',
      body: {
        credential_configuration_id: mdocConfigurationId,
        proofs: { jwt: [await proof(baselineIssuer, baselineNonce)] },
      },
    })),
  );
  const bare = await sampled(started.pid, () =>
    load(started.url, 'none', settings.duration, (counter) => baselineRequests[counter % 64]),
  );
  row(
    context,
    mdocCredentialScenario,
    mdocBaselineProcess,
    bare.measured,
    bare.usage,
    bare.otherCpuPercent,
  );
}

/** A text string's CBOR. */
const tstr = (text) => Buffer.from(cbor.encode(text));
/**
 * A DeviceResponse-shaped mdoc @auth0/mdl's parser reads, around the IssuerSigned's own CBOR bytes
 * (written by hand so that they are not decoded and encoded again).
 */
function mdocAround(issuerSigned) {
  return Buffer.concat([
    Buffer.from([0xa3]), // map(3)
    tstr('version'),
    tstr('1.0'),
    tstr('documents'),
    Buffer.from([0x81, 0xa2]), // array(1), map(2)
    tstr('docType'),
    tstr(doctype),
    tstr('issuerSigned'),
    Buffer.from(issuerSigned, 'base64url'),
    tstr('status'),
    Buffer.from([0x00]),
  ]);
}

/**
 * The SessionTranscript of a redirect request, per OpenID4VP 1.0 appendix B.2.6.1 (direct_post: no
 * encryption key, so the thumbprint is null), as the SessionTranscriptBytes (tag 24) @auth0/mdl takes.
 */
function transcriptBytes(clientId, nonce, responseUri) {
  const info = cbor.encode([clientId, nonce, null, responseUri]);
  const handover = ['OpenID4VPHandover', createHash('sha256').update(info).digest()];
  return Buffer.from(cbor.encode(new Tag(cbor.encode([null, null, handover]), 24)));
}

/** The asked elements of `document`, device-signed by the wallet's key over `transcript`. */
async function presentMdl(document, transcript) {
  const response = await DeviceResponse.from(document)
    .usingPresentationDefinition({
      id: 'request',
      input_descriptors: [
        {
          id: doctype,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: asked.map((element) => ({
              path: [`$['${namespace}']['${element}']`],
              intent_to_retain: false,
            })),
          },
        },
      ],
    })
    .usingSessionTranscriptBytes(transcript)
    .authenticateWithSignature(/** @type {any} */ (devicePrivateJwk), 'ES256')
    .sign();
  return Buffer.from(response.encode()).toString('base64url');
}

/** A pending mDL request of the verifier tenant and the wallet's answer to it, ready to post. */
async function mdocAnswerFor(url, apiToken, verifierTenant, document) {
  const created = await call(url, `${apiPath}/oid4vp/requests`, {
    token: apiToken,
    tenantId: verifierTenant,
    json: {
      dcqlQuery: {
        credentials: [
          {
            id: queryId,
            format: 'mso_mdoc',
            meta: { doctype_value: doctype },
            claims: asked.map((element) => ({
              path: [namespace, element],
              intent_to_retain: false,
            })),
          },
        ],
      },
      responseMode: 'direct_post',
    },
  });
  const requestUri = new URL(created.authorizationRequestUri).searchParams.get('request_uri');
  const response = await fetch(/** @type {string} */ (requestUri));
  if (!response.ok) throw new Error(`the request object answered ${response.status}`);
  const requestObject = await response.text();
  const object = decodeJwt(requestObject);
  const x5c = decodeProtectedHeader(requestObject).x5c;
  const clientId = String(object.client_id);
  const responseUri = String(object.response_uri);
  const presentation = await presentMdl(
    document,
    transcriptBytes(clientId, String(object.nonce), responseUri),
  );
  return {
    method: 'POST',
    path: new URL(responseUri).pathname,
    form: { vp_token: JSON.stringify({ [queryId]: [presentation] }), state: String(object.state) },
    clientId,
    x5c: Array.isArray(x5c) ? x5c.length : 0,
  };
}

/**
 * The OpenID4VP response endpoint answering mDL presentations at `at`: an mDL issued by
 * `issuingTenant` (its configuration made by measureMdocIssuance), whose IACA (the service's
 * authority) `verifierTenant` adds as a trust anchor.
 * @param {any} context
 * @param {string} issuingTenant
 * @param {string} verifierTenant
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function measureMdocResponse(context, issuingTenant, verifierTenant, at) {
  const apiToken = await (at.token ?? context.token)();
  await ensureMdocConfiguration(at.url, apiToken, issuingTenant);
  const request = await mdocCredentialRequest(at.url, apiToken, issuingTenant);
  const answer = await call(at.url, request.path, { token: request.token, json: request.body });
  const document = mdocAround(answer.credentials[0].credential);

  const authority = await fetch(`${at.url}${apiPath}/certificates/authority`, {
    headers: { authorization: `Bearer ${apiToken}`, 'x-tenant-id': issuingTenant },
  });
  if (!authority.ok) throw new Error(`the authority answered ${authority.status}`);
  const { certificate } = /** @type {{ certificate: string }} */ (await authority.json());
  const anchored = await fetch(`${at.url}${apiPath}/trust-anchors/create`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiToken}`,
      'x-tenant-id': verifierTenant,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ certificate }),
  });
  if (!anchored.ok && anchored.status !== 409) {
    throw new Error(
      `trust anchor for ${verifierTenant}: ${anchored.status} ${await anchored.text()}`,
    );
  }

  const count = prepared();
  log(
    `mdoc [${at.process}]: preparing ${count} mDL answers (request, request object, DeviceResponse each)`,
  );
  const answers = await inBatches(count, () =>
    mdocAnswerFor(at.url, apiToken, verifierTenant, document),
  );
  check(
    context,
    `${at.process}: the mdoc response row's requests are signed with x5c, x509_hash client ids`,
    `${answers[0].clientId.split(':')[0]}, x5c of ${answers[0].x5c} certificate(s)`,
    answers[0].clientId.startsWith('x509_hash:') && answers[0].x5c > 0,
  );
  const verified = await measurePrepared(at, apiToken, answers);
  row(
    context,
    mdocResponseScenario,
    at.process,
    verified.measured,
    verified.usage,
    verified.otherCpuPercent,
  );
}
