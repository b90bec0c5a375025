// @ts-check
/**
 * ISO mdoc beside the SD-JWT VC wallet rows (docs/mdoc.md): the credential endpoint issuing an mDL
 * (`mso_mdoc`, revocable) beside a bare baseline doing the same cryptography in memory
 * (bench/mdoc-baseline.mjs). The response endpoint's row is in bench/mdoc-presentation.mjs.
 */
import { Encoder } from 'cbor-x';
import { call, proof } from './oid4vci.mjs';
import { baselineTurns, check, rowsInTurns } from './wallet-rows.mjs';
import { startScript } from './processes.mjs';
import { apiPath, settings } from './settings.mjs';

export const mdocCredentialScenario = 'POST {issuer}/credential, mso_mdoc mDL, with x5chain';
export const mdocBaselineProcess = 'mdoc baseline';
export const mdocConfigurationId = 'bench-mdl';
export const doctype = 'org.iso.18013.5.1.mDL';
export const namespace = 'org.iso.18013.5.1';
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

/** CBOR as ISO/IEC 18013-5 writes it: maps kept as maps. */
export const cbor = new Encoder({ mapsAsObjects: false, useRecords: false });

/** The mDL configuration (revocable, the default) for `tenantId` unless it has it already. */
export async function ensureMdocConfiguration(url, apiToken, tenantId) {
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
export async function mdocCredentialRequest(url, apiToken, tenantId) {
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
export async function inBatches(count, make) {
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

  /** @type {import('./wallet-rows.mjs').Turn[]} */
  const turns = [
    {
      at,
      token: apiToken,
      prepare: (count) => inBatches(count, () => mdocCredentialRequest(at.url, apiToken, tenantId)),
    },
  ];
  if (withBaseline) {
    const baselineIssuer = 'https://baseline.invalid/issuer';
    const baselineNonce = 'baseline-nonce';
    const started = await startScript('bench/mdoc-baseline.mjs', {
      ISSUER: baselineIssuer,
      NONCE: baselineNonce,
      CLAIMS: JSON.stringify(mdocClaims),
    });
    const baselineRequests = () =>
      Promise.all(
        Array.from({ length: 64 }, async () => ({
          method: 'POST',
          path: '/credential',
          body: {
            credential_configuration_id: mdocConfigurationId,
            proofs: { jwt: [await proof(baselineIssuer, baselineNonce)] },
          },
        })),
      );
    const bare = { processName: mdocBaselineProcess, started };
    turns.push(...(await baselineTurns(context, bare, undefined, baselineRequests)));
  }
  await rowsInTurns(context, mdocCredentialScenario, turns);
}
