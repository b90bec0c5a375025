import { randomBytes, randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type NewCredentialConfiguration } from '../../packages/client/src/index.js';
import {
  HolderIssuanceService,
  type HolderCredential,
  type HolderIssueRequest,
  type HolderKey,
  type PreparedHolderIssue,
} from '../../src/credentials/issuing/holder-issuance.service.js';
import { sealClaims } from '../../src/oid4vci/offers/offer-claims.js';
import { secretHash, txCodeHash } from '../../src/oid4vci/offers/offer-secrets.js';
import { KeyVault } from '../../src/secrets/key-vault.js';
import { type RunningService } from '../../src/bootstrap/start-service.js';

type Json = Record<string, unknown>;

/** The snapshot an offer keeps of its configuration, with the defaults the service applies. */
export function configurationSnapshot(configuration: NewCredentialConfiguration): Json {
  const sdJwt = configuration.format === 'dc+sd-jwt';
  const claims = configuration.claims ?? [];
  return {
    format: configuration.format,
    vct: configuration.vct ?? null,
    credentialDefinition: configuration.credentialDefinition ?? null,
    claims,
    display: configuration.display ?? [],
    selectivelyDisclosable: sdJwt
      ? (configuration.selectivelyDisclosable ?? claims.map((claim) => claim.path))
      : null,
    expiresInSeconds: configuration.expiresInSeconds ?? null,
    revocable: configuration.revocable ?? true,
    signingAlgorithm: sdJwt ? (configuration.signingAlgorithm ?? 'ES256') : null,
    cryptosuite: sdJwt ? null : (configuration.cryptosuite ?? 'eddsa-rdfc-2022'),
  };
}

export interface TestOfferInput {
  tenantId: string;
  configuration: NewCredentialConfiguration;
  claims: Json;
  /** Default: a random 256-bit code. */
  preAuthorizedCode?: string;
  txCode?: string;
  /** Default: in ten minutes. */
  expiresAt?: Date;
}

export interface TestOffer {
  id: string;
  preAuthorizedCode: string;
  txCode?: string;
}

/**
 * An `oid4vci_offer` row written directly, as the offers API would write it (the code and the
 * transaction code hashed as src/oid4vci/offers/offer-secrets.ts says, the claims sealed with the app's
 * KeyVault; `secrets_sealed` arbitrary), for the wallet endpoints' tests.
 */
export async function insertOffer(
  service: RunningService,
  input: TestOfferInput,
): Promise<TestOffer> {
  const vault = service.app.get(KeyVault, { strict: false });
  const id = randomUUID();
  const preAuthorizedCode = input.preAuthorizedCode ?? randomBytes(32).toString('base64url');
  const txCode = input.txCode;
  await service.dataSource.query(
    `INSERT INTO oid4vci_offer (id, tenant_id, configuration_id, configuration, claims_sealed,
       claims_master_key_id, status, by_value, secrets_sealed, pre_authorized_code_hash,
       reference_hash, tx_code, tx_code_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $12, 'offered', true, $6, $7, $8, $9, $10, $11)`,
    [
      id,
      input.tenantId,
      input.configuration.id,
      JSON.stringify(configurationSnapshot(input.configuration)),
      sealClaims(vault, id, input.claims),
      randomBytes(16),
      secretHash(preAuthorizedCode),
      secretHash(randomBytes(32).toString('base64url')),
      txCode === undefined
        ? null
        : JSON.stringify({ length: txCode.length, input_mode: 'numeric' }),
      txCode === undefined ? null : await txCodeHash(id, txCode),
      input.expiresAt ?? new Date(Date.now() + 600_000),
      vault.masterKeyId,
    ],
  );
  return { id, preAuthorizedCode, ...(txCode === undefined ? {} : { txCode }) };
}

/** The offer's row as the tests look at it; `claims` is null once neither sealed nor clear claims are kept. */
export async function offerRow(dataSource: DataSource, id: string): Promise<Json> {
  const [row] = await dataSource.query<Json[]>(
    `SELECT status, failure,
            CASE WHEN claims_sealed IS NULL AND claims_unsealed IS NULL THEN NULL ELSE 'kept' END
              AS claims, tx_code_failures AS "txCodeFailures", dpop_jkt AS "dpopJkt",
            access_token_hash AS "accessTokenHash", notification_id AS "notificationId",
            notification, credential_ids AS "credentialIds"
       FROM oid4vci_offer WHERE id = $1`,
    [id],
  );
  return row;
}

/** One call of the holder issuance the credential endpoint made. */
export interface HolderIssuanceCall {
  request: HolderIssueRequest;
  holders: HolderKey[];
  /** How many of the credentials' records had committed when they were to be signed. */
  recordedBeforeSigning: number;
}

/**
 * Stands in for the signing of the credentials feature's HolderIssuanceService (built apart): the one
 * instance the app injects records as the endpoint's statement made it, then its `sign` answers one
 * fixed credential per holder, noting what the database held at that moment.
 */
export function fakeHolderIssuance(service: RunningService): HolderIssuanceCall[] {
  const calls: HolderIssuanceCall[] = [];
  const instance = service.app.get(HolderIssuanceService, { strict: false });
  instance.sign = async (
    request: HolderIssueRequest,
    prepared: PreparedHolderIssue[],
  ): Promise<HolderCredential[]> => {
    const holders = prepared.map(({ holder }) => holder);
    const [{ recorded }] = await service.dataSource.query<{ recorded: number }[]>(
      'SELECT count(*)::int AS recorded FROM issued_credential WHERE id = ANY($1)',
      [holders.map((holder) => holder.credentialId)],
    );
    calls.push({ request, holders, recordedBeforeSigning: recorded });
    return holders.map((holder, index) => ({
      credentialId: holder.credentialId,
      credential:
        request.format === 'dc+sd-jwt'
          ? `eyJhbGciOiJFUzI1NiJ9.e30.sig${index}~`
          : { '@context': ['https://www.w3.org/ns/credentials/v2'], index },
    }));
  };
  return calls;
}
