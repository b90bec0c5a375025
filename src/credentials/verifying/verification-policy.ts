/**
 * What a caller may ask of a verification (docs/credentials.md, "Verify"): `options.checks` names the
 * checks to run and report, and a trusted issuers list narrows whose credentials pass.
 */

/** The checks of a credential, in the order they are reported. */
export const credentialChecks = ['proof', 'issuer', 'validity', 'status'] as const;
export type CredentialCheck = (typeof credentialChecks)[number];

/** What `options.checks` may name on a presentation: its own checks and its credentials'. */
export const presentationChecks = [
  'proof',
  'holder',
  'challenge',
  'domain',
  'credential',
  'issuer',
  'validity',
  'status',
] as const;

/** Run whatever `checks` says: a signature means nothing unless its key is the issuer's (or holder's). */
export const alwaysRun: readonly string[] = [
  'proof',
  'issuer',
  'holder',
  'challenge',
  'domain',
  'credential',
];

export interface VerificationPolicy {
  /** The checks asked for (`options.checks`); absent: all of them. */
  checks?: readonly string[];
  /** The issuers whose credentials pass the `issuer` check; absent: any whose key resolves. */
  trustedIssuers?: ReadonlySet<string>;
}

/** Whether `check` runs under `policy`: always for the mandatory ones, else when asked (or all asked). */
export function runs(policy: VerificationPolicy, check: CredentialCheck): boolean {
  return alwaysRun.includes(check) || policy.checks === undefined || policy.checks.includes(check);
}
