// @ts-check
/**
 * ISO mdoc beside the SD-JWT VC response row (docs/mdoc.md): the OpenID4VP response endpoint verifying
 * an mDL's DeviceResponse (direct_post), each built in advance by @auth0/mdl over the OpenID4VPHandover
 * session transcript of its own request.
 */
import { createHash } from 'node:crypto';
import { DeviceResponse } from '@auth0/mdl';
import { Tag } from 'cbor-x';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  cbor,
  doctype,
  ensureMdocConfiguration,
  inBatches,
  mdocCredentialRequest,
  namespace,
} from './mdoc.mjs';
import { call, wallet } from './oid4vci.mjs';
import { checkingClientIds, rowsInTurns } from './wallet-rows.mjs';
import { apiPath } from './settings.mjs';

export const mdocResponseScenario = 'POST {verifier}/requests/{reference}/response, mso_mdoc mDL';
/** What the verifier asks and the holder presents. */
const asked = ['family_name', 'given_name', 'birth_date'];
const queryId = 'mdl';
const devicePrivateJwk = wallet.privateKey.export({ format: 'jwk' });

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

  await rowsInTurns(context, mdocResponseScenario, [
    {
      at,
      token: apiToken,
      prepare: checkingClientIds(context, `${at.process}: the mdoc response row`, (count) =>
        inBatches(count, () => mdocAnswerFor(at.url, apiToken, verifierTenant, document)),
      ),
    },
  ]);
}
