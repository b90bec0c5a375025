import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { bundledContexts } from '../../src/credentials/contexts.js';
import { createDocumentLoader } from '../../src/credentials/document-loader.js';
import { ed25519DidKey } from '../../src/did/did-key.js';
import { ed25519PrivateKey, ed25519Signer } from '../../src/did/signer.js';
import canonicalizeModule from 'canonicalize';
import { base58 } from '@scure/base';
import { type ApiResponse, type TestService } from './test-service.js';

export type Json = Record<string, unknown>;

export const issuePath = '/ctrl/api/v1.0/credentials/issue';
export const verifyPath = '/ctrl/api/v1.0/credentials/verify';

export const examplesV2 = 'https://www.w3.org/ns/credentials/examples/v2';

/** A VC 2.0 credential of the spec's examples, without issuer or id (the service fills them in). */
export function alumniCredential(extra: Json = {}): Json {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', examplesV2],
    type: ['VerifiableCredential', 'AlumniCredential'],
    name: 'Alumni Credential',
    credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
    ...extra,
  };
}

export function issue(
  service: TestService,
  tenantId: string,
  credential: Json,
  options?: Json,
  as: 'admin' | 'demo' = 'admin',
): Promise<ApiResponse<{ verifiableCredential: Json }>> {
  return service.request(issuePath, {
    method: 'POST',
    as,
    headers: { 'x-tenant-id': tenantId },
    body: options === undefined ? { credential } : { credential, options },
  });
}

export function verifyCredential(
  service: TestService,
  tenantId: string,
  verifiableCredential: unknown,
): Promise<ApiResponse<Json>> {
  return service.request(verifyPath, {
    method: 'POST',
    headers: { 'x-tenant-id': tenantId },
    body: { verifiableCredential },
  });
}

/** A verification's status and its failed checks as `check: detail` lines. */
export interface VerificationOutcome {
  status: number;
  details: string[];
}

function outcomeOf(answer: ApiResponse<Json>): VerificationOutcome {
  const details = (answer.body.problemDetails ?? []) as Json[];
  return {
    status: answer.status,
    details: details.map((one) => `${String(one.check)}: ${String(one.detail)}`),
  };
}

/** Verifies a credential as the tenant; its outcome. */
export async function credentialOutcome(
  service: TestService,
  tenantId: string,
  credential: unknown,
): Promise<VerificationOutcome> {
  return outcomeOf(await verifyCredential(service, tenantId, credential));
}

/** Verifies a presentation made for `challenge` as the tenant; its outcome. */
export async function presentationOutcome(
  service: TestService,
  tenantId: string,
  presentation: unknown,
  challenge: string,
): Promise<VerificationOutcome> {
  return outcomeOf(
    await service.request<Json>('/ctrl/api/v1.0/presentations/verify', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: { verifiablePresentation: presentation, options: { challenge } },
    }),
  );
}

// A CommonJS module whose types declare an ES default export: imported, it is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * eddsa-jcs-2022 verification written from the specification (§3.3) with node:crypto and the RFC 8785
 * reference canonicalizer: nothing of the service or of the Data Integrity libraries.
 */
export function verifiesPerJcsSpec(secured: Json): boolean {
  const { proof, ...document } = secured as { proof: Json } & Json;
  const { proofValue, ...options } = proof;
  const config = { ...options, '@context': document['@context'] };
  const hash = (value: unknown) =>
    createHash('sha256')
      .update(canonicalize(value) ?? '')
      .digest();
  const data = Buffer.concat([hash(config), hash(document)]);
  const multibase = String(options.verificationMethod).split('#')[1] ?? '';
  const publicKey = createPublicKey({
    key: Buffer.concat([ed25519SpkiPrefix, base58.decode(multibase.slice(1)).slice(2)]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, data, publicKey, base58.decode(String(proofValue).slice(1)));
}

/** A holder with its own did:key, signing presentations with the Digital Bazaar vc library. */
export function makeHolder() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const { did, publicKeyMultibase } = ed25519DidKey(raw);
  const key = ed25519PrivateKey(raw, seed);
  const signer = ed25519Signer(`${did}#${publicKeyMultibase}`, () => key);
  const documentLoader = createDocumentLoader(bundledContexts());
  return {
    did,
    present: (credentials: Json[], challenge: string, domain?: string, holder = did) =>
      vc.signPresentation({
        presentation: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['VerifiablePresentation'],
          holder,
          verifiableCredential: credentials,
        },
        suite: new DataIntegrityProof({ signer, cryptosuite: eddsaRdfc2022 }),
        documentLoader,
        challenge,
        domain,
      }),
  };
}

/** A presentation signed by a fresh holder. */
export function selfSignedPresentation(
  credentials: Json[],
  challenge = 'challenge-1',
): Promise<Json> {
  return makeHolder().present(credentials, challenge);
}

/**
 * An attack's result and how many probe rounds were answered while it ran. How long the attack may hold
 * the event loop is measured by `npm run bench:verification-hold` (docs/performance.md, Bounded
 * verification), not asserted here: a test must pass on a busy machine.
 */
export interface ProbedAttack<T> {
  result: T;
  probes: number;
}

/**
 * Runs `attack` and, until it settles, probes liveness and `probeTenant`'s DID one round after another:
 * a service whose event loop the attack holds answers the probes only when it lets go.
 */
export async function probeDuring<T>(
  service: TestService,
  probeTenant: string,
  attack: () => Promise<T>,
): Promise<ProbedAttack<T>> {
  let settled = false;
  const running = attack().finally(() => {
    settled = true;
  });
  let probes = 0;
  do {
    const [live, did] = await Promise.all([
      service.request('/ctrl/health/live', { as: 'anonymous' }),
      service.request('/ctrl/api/v1.0/did', { headers: { 'x-tenant-id': probeTenant } }),
    ]);
    expect([live.status, did.status]).toEqual([200, 200]);
    probes++;
    // Pacing, not waiting for anything: the next round starts on the next turn of the loop.
    await new Promise((resolve) => setTimeout(resolve, 10));
  } while (!settled);
  return { result: await running, probes };
}

/** A fresh did:key and its signer: a key that is nobody's issuer key. */
export function makeSigner(): { did: string; signer: Signer } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const { did, publicKeyMultibase } = ed25519DidKey(raw);
  const key = ed25519PrivateKey(raw, seed);
  return {
    did,
    signer: ed25519Signer(`${did}#${publicKeyMultibase}`, () => key),
  };
}

/**
 * Adds an eddsa-rdfc-2022 proof with the Digital Bazaar library, as Data Integrity 1.0 §4.2 "Add
 * Proof" does: a proof naming `previousProof` signs the document with the proofs it names, a proof
 * set's member the document alone.
 */
export async function addProof(
  secured: Json,
  signer: Signer,
  options: { id?: string; previousProof?: string | string[]; proofPurpose?: string } = {},
): Promise<Json> {
  const { proof: existing, ...unsecured } = secured;
  const proofs = (existing === undefined ? [] : [existing].flat()) as Json[];
  const named = [options.previousProof ?? []].flat();
  const previous = proofs.filter((proof) => named.includes(proof.id as string));
  const document =
    previous.length === 0
      ? unsecured
      : { ...unsecured, proof: previous.length === 1 ? previous[0] : previous };
  const suite = new DataIntegrityProof({ signer, cryptosuite: eddsaRdfc2022 }) as unknown as {
    proof?: Json;
    createProof(options: {
      document: Json;
      purpose: { update(proof: Json): Promise<Json> };
      proofSet: Json[];
      documentLoader: DocumentLoader;
    }): Promise<Json>;
  };
  suite.proof = {
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.previousProof === undefined ? {} : { previousProof: options.previousProof }),
  };
  const purpose = options.proofPurpose ?? 'assertionMethod';
  const proof = await suite.createProof({
    document: structuredClone(document),
    purpose: { update: (made) => Promise.resolve({ ...made, proofPurpose: purpose }) },
    proofSet: [],
    documentLoader: createDocumentLoader(bundledContexts()),
  });
  return { ...unsecured, proof: proofs.length === 0 ? proof : [...proofs, proof] };
}
