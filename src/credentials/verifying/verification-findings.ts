import { checkProblemTypes, type CheckProblem } from '../credential.errors.js';

type Json = Record<string, unknown>;

/** `work` of each item, at most `limit` at a time, answered in the items' order. */
export async function mapAtMost<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The `status` check's finding for a set bit. The wallet-presentation verifier tells revoked from
 * suspended by it (ldp-presentation-verifier.ts): the two share a problem type.
 */
export function statusSetDetail(statusPurpose: unknown): string {
  return `the credential is ${statusPurpose === 'revocation' ? 'revoked' : 'suspended'}`;
}

/** The `issuer` check's last word: an issuer outside the list that applies is refused. */
export function untrustedProblem(
  issuer: string,
  trusted?: ReadonlySet<string>,
): string | undefined {
  if (trusted === undefined || trusted.has(issuer)) return undefined;
  return `untrusted issuer: '${issuer}' is not in the trusted issuers list`;
}

/** A failed `proof` check. */
export function proofProblem(detail: string): CheckProblem {
  return {
    type: checkProblemTypes.proof,
    check: 'proof',
    title: 'Proof verification failed',
    detail,
  };
}

/** A proof as a finding names it: its id when it has one, and its cryptosuite or type. */
export function describeProof(proof: Json): string {
  const name = typeof proof.cryptosuite === 'string' ? proof.cryptosuite : String(proof.type);
  return typeof proof.id === 'string' ? `proof ${proof.id} (${name})` : `proof (${name})`;
}
