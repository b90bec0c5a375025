import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { type DataSource } from 'typeorm';
import { type RunningService } from '../../src/bootstrap/start-service.js';
import {
  WalletPresentationsService,
  type PresentationCheck,
  type PresentationExpectation,
} from '../../src/credentials/verifying/wallet-presentations.service.js';
import { DidService } from '../../src/did/did.service.js';
import {
  disclosedClaimsPurpose,
  requestSecretsPurpose,
  type RequestSecrets,
} from '../../src/oid4vp/requests/presentation-request.sealed-columns.js';
import {
  authorizationRequestUriOf,
  clientIdOf,
  referenceHashOf,
  requestUriOf,
  responseUriOf,
} from '../../src/oid4vp/verifier-urls.js';
import { KeyVault } from '../../src/secrets/key-vault.js';

type Json = Record<string, unknown>;

export interface TestRequestInput {
  tenantId: string;
  dcqlQuery: Json;
  /** Default: direct_post. */
  responseMode?: 'direct_post' | 'direct_post.jwt';
  /** Default: get. */
  requestUriMethod?: 'get' | 'post';
  trustedIssuers?: string[];
  /** Default: in ten minutes. */
  expiresAt?: Date;
}

export interface TestRequest {
  id: string;
  reference: string;
  nonce: string;
  state: string;
  clientId: string;
  requestUri: string;
  responseUri: string;
  /** The `openid4vp://` link a wallet opens. */
  link: string;
  /** direct_post.jwt: the public JWK the wallet encrypts to. */
  encryptionJwk?: JWK;
}

/**
 * An `oid4vp_request` row written directly, as the requests API writes it: the reference found by its
 * hash (src/oid4vp/verifier-urls.ts), reference and response key sealed with the app's KeyVault for
 * the tenant, the client id of the tenant's DID; for the wallet endpoints' tests.
 */
export async function insertRequest(
  service: RunningService,
  input: TestRequestInput,
): Promise<TestRequest> {
  const id = randomUUID();
  const reference = randomBytes(32).toString('base64url');
  const nonce = randomBytes(32).toString('base64url');
  const state = randomBytes(32).toString('base64url');
  const responseMode = input.responseMode ?? 'direct_post';
  const requestUriMethod = input.requestUriMethod ?? 'get';
  const did = (await service.app.get(DidService, { strict: false }).didsOf([input.tenantId])).get(
    input.tenantId,
  );
  if (did === undefined) throw new Error(`tenant ${input.tenantId} has no DID`);
  const clientId = clientIdOf(did);
  const secrets: RequestSecrets = { reference };
  let encryptionJwk: JWK | undefined;
  if (responseMode === 'direct_post.jwt') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    secrets.responseKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ECDH-ES' };
    encryptionJwk = { ...publicJwk, kid, use: 'enc', alg: 'ECDH-ES' };
  }
  const vault = service.app.get(KeyVault, { strict: false });
  await service.dataSource.query(
    `INSERT INTO oid4vp_request (id, tenant_id, status, dcql_query, response_mode, request_uri_method,
       trusted_issuers, client_id, nonce, state, reference_hash, secrets_sealed, master_key_id,
       expires_at)
     VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      input.tenantId,
      JSON.stringify(input.dcqlQuery),
      responseMode,
      requestUriMethod,
      input.trustedIssuers === undefined ? null : JSON.stringify(input.trustedIssuers),
      clientId,
      nonce,
      state,
      referenceHashOf(reference),
      vault.seal(input.tenantId, Buffer.from(JSON.stringify(secrets)), requestSecretsPurpose),
      vault.masterKeyId,
      input.expiresAt ?? new Date(Date.now() + 600_000),
    ],
  );
  const base = service.settings.PUBLIC_BASE_URL;
  const requestUri = requestUriOf(base, input.tenantId, reference);
  return {
    id,
    reference,
    nonce,
    state,
    clientId,
    requestUri,
    responseUri: responseUriOf(base, input.tenantId, reference),
    link: authorizationRequestUriOf(clientId, requestUri, requestUriMethod),
    ...(encryptionJwk === undefined ? {} : { encryptionJwk }),
  };
}

/** The request's row as the tests look at it, with its disclosed claims opened. */
export async function requestRow(service: RunningService, id: string): Promise<Json> {
  const [row] = await service.dataSource.query<Json[]>(
    `SELECT tenant_id AS "tenantId", status, outcome_code AS "outcomeCode",
            outcome_reason AS "outcomeReason", presented, claims_sealed AS "claimsSealed",
            claims_master_key_id AS "claimsMasterKeyId", ended_at AS "endedAt",
            refused_answers AS "refusedAnswers"
       FROM oid4vp_request WHERE id = $1`,
    [id],
  );
  const { claimsSealed, claimsMasterKeyId, ...rest } = row;
  if (claimsSealed === null) return { ...rest, claims: null };
  const vault = service.app.get(KeyVault, { strict: false });
  const opened = vault.open(
    row.tenantId as string,
    claimsSealed as Buffer,
    disclosedClaimsPurpose,
    claimsMasterKeyId as string,
  );
  return { ...rest, claims: JSON.parse(opened.toString('utf8')) as Json };
}

/** The events written for the request (type and the body's text), oldest first. */
export async function requestEvents(
  dataSource: DataSource,
  id: string,
): Promise<{ type: string; body: string }[]> {
  return dataSource.query<{ type: string; body: string }[]>(
    `SELECT type, body FROM webhook_event WHERE body LIKE '%' || $1 || '%' ORDER BY created_at`,
    [id],
  );
}

/** One call of the presentation verifier the response endpoint made. */
export type VerifierCall = PresentationExpectation;

/**
 * Stands in for the credentials feature's WalletPresentationsService: the one instance the app
 * injects gets a recording `verify` that answers what `check` says.
 */
export function standInVerifier(
  service: RunningService,
  check: (expectation: PresentationExpectation) => Promise<PresentationCheck>,
): VerifierCall[] {
  const calls: VerifierCall[] = [];
  const instance = service.app.get(WalletPresentationsService, { strict: false });
  instance.verify = (expectation) => {
    calls.push(expectation);
    return check(expectation);
  };
  return calls;
}
