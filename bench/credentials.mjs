// @ts-check
/** The credential scenarios: issue (each cryptosuite), verify and status update, beside the baseline. */
import { compareProcess, interleaved } from './load.mjs';
import { apiPath, log, settings } from './settings.mjs';

export const credentialBaselineProcess = 'credential baseline';
export const fairBaselineProcess = 'credential baseline, fair';
/** The fair baseline's work in the service's stack (bench/credential-stack-floor.mjs). */
export const credentialFloorProcess = 'credential stack floor';
export const issueScenario = (cryptosuite) => `POST /credentials/issue (${cryptosuite})`;
/** Issue with `credentialStatus: []`: what the status entry costs is the ratio to this. */
export const issueNoStatusScenario = (cryptosuite) =>
  `POST /credentials/issue (${cryptosuite}, no status)`;
export const verifyScenario = 'POST /credentials/verify';
export const statusScenario = 'POST /credentials/status';
export const cryptosuites = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'];

/** The VC 2.0 example the README issues, without id: each request gets its own. */
const credential = {
  '@context': [
    'https://www.w3.org/ns/credentials/v2',
    'https://www.w3.org/ns/credentials/examples/v2',
  ],
  type: ['VerifiableCredential', 'AlumniCredential'],
  name: 'Alumni Credential',
  credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
};

/** @param {string | null} statusPurpose null: no status entry (`credentialStatus: []`) */
export function issueRequests(cryptosuite, tenantIds, statusPurpose = 'revocation') {
  return (counter) => ({
    method: 'POST',
    path: `${apiPath}/credentials/issue`,
    headers: { 'x-tenant-id': tenantIds[counter % tenantIds.length] },
    body: {
      credential,
      options: {
        cryptosuite,
        credentialStatus:
          statusPurpose === null ? [] : { type: 'BitstringStatusListEntry', statusPurpose },
      },
    },
  });
}

/** @returns {Promise<any>} the JSON answer of a POST that must succeed */
async function post(url, token, request) {
  const response = await fetch(`${url}${request.path}`, {
    method: 'POST',
    headers: {
      ...request.headers,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(request.body),
  });
  if (!response.ok) throw new Error(`${request.path} answered ${response.status}`);
  return response.json();
}

/**
 * Issue: all requests for one tenant, beside the bare and the fair baseline and the fair baseline's
 * stack floor (without a database, the bare one alone), then with and without a
 * status entry in turns, for one tenant and spread over `tenantIds`. Verify: one credential of each
 * process, status included (BENCH_COMPARE's too).
 * Status: suspension set and cleared in turns over a pool of credentials of one tenant.
 */
export async function measureCredentials(context, tenantIds, { bare: baseline, fair, floor }) {
  const { service, token } = context;
  const [tenant] = tenantIds;
  const serviceSpec = { size: 1, process: 'service', url: service.url, pid: service.pid };
  const baselineSpec = {
    size: 1,
    process: credentialBaselineProcess,
    url: baseline.url,
    pid: baseline.pid,
  };
  const fairSpec = fair && { size: 1, process: fairBaselineProcess, url: fair.url, pid: fair.pid };
  const floorSpec = floor && {
    size: 1,
    process: credentialFloorProcess,
    url: floor.url,
    pid: floor.pid,
  };
  // BENCH_COMPARE's service issues in turns too: its database holds the same tenant ids.
  const { compare } = context;
  const compareSpec = compare && {
    size: 1,
    process: compareProcess,
    url: compare.url,
    pid: compare.pid,
    token: compare.token,
  };
  // Without a status entry too, in the same turns: the ratio is what the entry costs.
  const withoutStatus = (spec, cryptosuite, ids) => ({
    ...spec,
    size: ids.length,
    name: issueNoStatusScenario(cryptosuite),
    requestFor: issueRequests(cryptosuite, ids, null),
  });
  for (const cryptosuite of cryptosuites) {
    const name = issueScenario(cryptosuite);
    const requestFor = issueRequests(cryptosuite, [tenant]);
    const bare = cryptosuite === cryptosuites[0];
    await interleaved(
      context,
      [
        { ...serviceSpec, name, requestFor },
        ...(bare ? [withoutStatus(serviceSpec, cryptosuite, [tenant])] : []),
        { ...baselineSpec, name, requestFor },
        ...(fairSpec ? [{ ...fairSpec, name, requestFor }] : []),
        ...(floorSpec ? [{ ...floorSpec, name, requestFor }] : []),
        ...(compareSpec ? [{ ...compareSpec, name, requestFor }] : []),
        ...(compareSpec && bare ? [withoutStatus(compareSpec, cryptosuite, [tenant])] : []),
      ],
      settings.slices,
    );
  }
  // Spread over the tenants, with and without a status entry in turns.
  const spread = (spec) => ({
    ...spec,
    size: tenantIds.length,
    name: issueScenario(cryptosuites[0]),
    requestFor: issueRequests(cryptosuites[0], tenantIds),
  });
  await interleaved(
    context,
    [
      spread(serviceSpec),
      withoutStatus(serviceSpec, cryptosuites[0], tenantIds),
      ...(compareSpec
        ? [spread(compareSpec), withoutStatus(compareSpec, cryptosuites[0], tenantIds)]
        : []),
    ],
    settings.slices,
  );

  const verifyRequests = async (url, tokenOf = token) => {
    const { verifiableCredential } = await post(
      url,
      await tokenOf(),
      issueRequests(cryptosuites[0], [tenant])(0),
    );
    return () => ({
      method: 'POST',
      path: `${apiPath}/credentials/verify`,
      headers: { 'x-tenant-id': tenant },
      body: { verifiableCredential },
    });
  };
  await interleaved(
    context,
    [
      { ...serviceSpec, name: verifyScenario, requestFor: await verifyRequests(service.url) },
      { ...baselineSpec, name: verifyScenario, requestFor: await verifyRequests(baseline.url) },
      ...(await Promise.all(
        [fairSpec, floorSpec]
          .filter((spec) => spec !== undefined)
          .map(async (spec) => ({
            ...spec,
            name: verifyScenario,
            requestFor: await verifyRequests(spec.url),
          })),
      )),
      ...(compareSpec
        ? [
            {
              ...compareSpec,
              name: verifyScenario,
              requestFor: await verifyRequests(compareSpec.url, compareSpec.token),
            },
          ]
        : []),
    ],
    settings.slices,
  );

  const poolSize = 64;
  /** Suspension set and cleared in turns over `poolSize` credentials the service at `url` issued. */
  const statusSpec = async (spec, url, tokenOf = token) => {
    log(`issuing ${poolSize} credentials with a suspension entry (${spec.process})`);
    const issueSuspendable = issueRequests(cryptosuites[0], [tenant], 'suspension');
    const pool = [];
    for (let n = 0; n < poolSize; n++) {
      pool.push((await post(url, await tokenOf(), issueSuspendable(n))).verifiableCredential.id);
    }
    return {
      ...spec,
      name: statusScenario,
      requestFor: (counter) => ({
        method: 'POST',
        path: `${apiPath}/credentials/status`,
        headers: { 'x-tenant-id': tenant },
        body: {
          credentialId: pool[counter % poolSize],
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
          status: Math.floor(counter / poolSize) % 2 === 0,
        },
      }),
    };
  };
  await interleaved(
    context,
    [
      await statusSpec(serviceSpec, service.url),
      ...(compareSpec ? [await statusSpec(compareSpec, compareSpec.url, compareSpec.token)] : []),
    ],
    compareSpec ? settings.slices : 1,
  );
}
