import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import { createVerifyCryptosuite as ecdsaJcs2019Verifying } from '@digitalbazaar/ecdsa-jcs-2019-cryptosuite';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import {
  createSignCryptosuite as eddsaJcs2022Signing,
  createVerifyCryptosuite as eddsaJcs2022Verifying,
} from '@digitalbazaar/eddsa-jcs-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { asArray, isJsonObject } from './credential-checks.js';
import { oneStepAtATime } from './verification-steps.js';

/** The cryptosuites this service signs with; the first is the default. */
export const signingCryptosuites = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const;
export type SigningCryptosuite = (typeof signingCryptosuites)[number];

type Json = Record<string, unknown>;

/** Signs a credential with a Data Integrity proof (`assertionMethod`, created `date`). */
export async function signCredential(
  credential: Json,
  options: {
    signer: Signer;
    cryptosuite: SigningCryptosuite;
    date: Date;
    documentLoader: DocumentLoader;
  },
): Promise<Json> {
  const suite = new DataIntegrityProof({
    signer: options.signer,
    date: options.date,
    cryptosuite: options.cryptosuite === 'eddsa-jcs-2022' ? eddsaJcs2022Signing() : eddsaRdfc2022,
  });
  return vc.issue({
    credential: structuredClone(credential),
    suite,
    documentLoader: options.documentLoader,
    now: options.date,
  });
}

export interface ProofResult {
  /** The proof as given, without its `proofValue`. */
  proof: Json;
  verified: boolean;
  error?: string;
}

/**
 * Verifies every proof on a secured document: a proof set (several independent proofs) and proof
 * chains (`previousProof`, each proof signs the document together with the proofs it names), as Data
 * Integrity 1.0 §4.3 defines them. Only the signatures: who may sign is the caller's question.
 * One proof after another, each a step of its own (oneStepAtATime).
 */
export async function verifyProofs(
  secured: Json,
  documentLoader: DocumentLoader,
): Promise<ProofResult[]> {
  const { proof, ...unsecured } = secured;
  const proofs = asArray(proof).filter(isJsonObject);
  const results: ProofResult[] = [];
  for (const current of proofs) {
    results.push(
      await oneStepAtATime(() => verifyProof(current, proofs, unsecured, documentLoader)),
    );
  }
  return results;
}

async function verifyProof(
  current: Json,
  proofs: Json[],
  unsecured: Json,
  documentLoader: DocumentLoader,
): Promise<ProofResult> {
  const described = { ...current };
  delete described.proofValue;
  const fail = (error: string): ProofResult => ({ proof: described, verified: false, error });
  const suite = suiteFor(current);
  if (suite === undefined) {
    return fail(`Unsupported proof type ${JSON.stringify([current.type, current.cryptosuite])}`);
  }
  const previousIds = idsOf(current.previousProof);
  const previous = proofs.filter((other) => previousIds.includes(other.id as string));
  if (previous.length !== previousIds.length) {
    return fail('A proof named in previousProof is not in the proof set');
  }
  const document =
    previous.length === 0
      ? unsecured
      : { ...unsecured, proof: previous.length === 1 ? previous[0] : previous };
  try {
    const result = await suite.verifyProof({
      proof: current,
      document,
      documentLoader,
      proofSet: proofs,
    });
    return result.verified
      ? { proof: described, verified: true }
      : fail(result.error?.message ?? 'Invalid signature.');
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

function suiteFor(proof: Json): LinkedDataSuite | undefined {
  if (proof.type === 'Ed25519Signature2020') return new Ed25519Signature2020();
  if (proof.type !== 'DataIntegrityProof') return undefined;
  if (proof.cryptosuite === 'eddsa-rdfc-2022') {
    return new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 });
  }
  if (proof.cryptosuite === 'eddsa-jcs-2022') {
    return new DataIntegrityProof({ cryptosuite: eddsaJcs2022Verifying() });
  }
  // P-256 keys (the cryptosuites also take P-384, which the DID resolution refuses).
  if (proof.cryptosuite === 'ecdsa-rdfc-2019') {
    return new DataIntegrityProof({ cryptosuite: ecdsaRdfc2019 });
  }
  if (proof.cryptosuite === 'ecdsa-jcs-2019') {
    return new DataIntegrityProof({ cryptosuite: ecdsaJcs2019Verifying() });
  }
  return undefined;
}

function idsOf(value: unknown): string[] {
  return asArray(value).filter((id): id is string => typeof id === 'string');
}
