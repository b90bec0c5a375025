/** The DID methods verification resolves, in the order the refusal names them. */
export const resolvedDidMethods = ['key', 'jwk', 'web'] as const;

/** A DID (or DID URL) verification cannot use: the message says why, naming the DID. */
export class UnresolvableDidError extends Error {
  override name = 'UnresolvableDidError';

  constructor(
    readonly did: string,
    reason: string,
  ) {
    super(`Cannot resolve '${did}': ${reason}`);
  }
}

/** The refusal of a DID whose method this service does not resolve, naming the method. */
export function unsupportedMethod(did: string): UnresolvableDidError {
  const method = /^did:([a-z0-9]+):/.exec(did)?.[1];
  const supported = resolvedDidMethods.map((name) => `did:${name}`).join(', ');
  const error = new UnresolvableDidError(did, '');
  error.message =
    method === undefined
      ? `'${did.slice(0, 100)}' is not a DID`
      : `did:${method} is not a DID method this service resolves (${supported})`;
  return error;
}
