import { documentLimitErrors } from '../verification-limits.js';

type Json = Record<string, unknown>;

export interface JsonWebKeyJson {
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
  y?: unknown;
  use?: unknown;
  [member: string]: unknown;
}

export interface VerificationMethodJson {
  id: string;
  type: string;
  controller: string;
  publicKeyMultibase?: string;
  publicKeyJwk?: JsonWebKeyJson;
  [member: string]: unknown;
}

export interface DidDocumentJson {
  '@context'?: unknown;
  id: string;
  verificationMethod?: VerificationMethodJson[];
  [member: string]: unknown;
}

/** The relationships a proof's purpose can name, and those a document may embed methods in. */
const relationships = [
  'assertionMethod',
  'authentication',
  'capabilityInvocation',
  'capabilityDelegation',
  'keyAgreement',
] as const;

/**
 * A DID document read from elsewhere (did:web), made whole: within the verification limits, its `id`
 * the DID, every verification method's id absolute (`#key-1` becomes `<did>#key-1`) and controlled
 * by the DID itself. Otherwise why it cannot be used.
 */
export function checkedDidDocument(document: unknown, did: string): DidDocumentJson | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return 'the DID document is not a JSON object';
  }
  const json = document as Json;
  const beyond = documentLimitErrors(json, 'didDocument');
  if (beyond.length > 0) return beyond.map((error) => `${error.field} ${error.message}`).join('; ');
  if (json.id !== did) return `the DID document's id is ${JSON.stringify(json.id)}, not the DID`;
  const absolute = (id: string) => (id.startsWith('#') ? `${did}${id}` : id);
  const methods: VerificationMethodJson[] = [];
  const methodOf = (value: unknown): VerificationMethodJson | string => {
    if (typeof value !== 'object' || value === null) return 'a verification method is no object';
    const method = value as Json;
    if (typeof method.id !== 'string' || typeof method.type !== 'string') {
      return 'a verification method has no string id or type';
    }
    const id = absolute(method.id);
    const controller = typeof method.controller === 'string' ? method.controller : undefined;
    // Only keys the DID controls speak for it: another controller's key would need its document too.
    if (!id.startsWith(`${did}#`) || controller !== did) {
      return `the verification method ${id} is not one of the DID's own (its id and controller must be the DID's)`;
    }
    return { ...method, id, type: method.type, controller };
  };
  const listed = Array.isArray(json.verificationMethod) ? json.verificationMethod : [];
  for (const value of listed) {
    const method = methodOf(value);
    if (typeof method === 'string') return method;
    methods.push(method);
  }
  const whole: DidDocumentJson = { ...json, id: did, verificationMethod: methods };
  for (const relationship of relationships) {
    const entries = json[relationship];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) return `the DID document's ${relationship} is not an array`;
    const ids: string[] = [];
    for (const entry of entries) {
      if (typeof entry === 'string') {
        ids.push(absolute(entry));
        continue;
      }
      // An embedded method is listed by its id, and dereferenced like the others.
      const method = methodOf(entry);
      if (typeof method === 'string') return method;
      methods.push(method);
      ids.push(method.id);
    }
    whole[relationship] = ids;
  }
  return whole;
}

/**
 * The verification method `url` names in `document`, as a document of its own (with the DID
 * document's context), once its key is one this service verifies with; otherwise why not.
 */
export function dereferenceMethod(document: DidDocumentJson, url: string): Json | string {
  const method = document.verificationMethod?.find((candidate) => candidate.id === url);
  if (method === undefined) return 'the DID document has no such verification method';
  const problem = keyTypeProblem(method);
  if (problem !== undefined) return problem;
  return { '@context': document['@context'], ...method };
}

/** Keys of the Ed25519 and P-256 curves, in the forms the cryptosuites read; any other is refused. */
export function keyTypeProblem(method: VerificationMethodJson): string | undefined {
  const { type, publicKeyMultibase: multibase, publicKeyJwk: jwk } = method;
  const unsupported = `the key is a ${type}${describeKey(method)}, not an Ed25519 or P-256 key this service verifies with`;
  if (type === 'Multikey' || type === 'Ed25519VerificationKey2020') {
    if (typeof multibase !== 'string' || multibase.length > 60) return unsupported;
    if (multibase.startsWith('z6Mk')) return undefined;
    return type === 'Multikey' && multibase.startsWith('zDn') ? undefined : unsupported;
  }
  if (type === 'JsonWebKey' || type === 'JsonWebKey2020') {
    if (typeof jwk !== 'object' || jwk === null || 'd' in jwk) return unsupported;
    const fields = [jwk.x, jwk.y].filter((field) => field !== undefined);
    if (!fields.every((field) => typeof field === 'string' && field.length <= 64)) {
      return unsupported;
    }
    if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && jwk.y === undefined) return undefined;
    if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.y === 'string') return undefined;
  }
  return unsupported;
}

function describeKey({ publicKeyMultibase, publicKeyJwk }: VerificationMethodJson): string {
  if (typeof publicKeyMultibase === 'string') return ` (${publicKeyMultibase.slice(0, 4)}…)`;
  if (typeof publicKeyJwk === 'object' && publicKeyJwk !== null) {
    return ` (${String(publicKeyJwk.kty)} ${String(publicKeyJwk.crv)})`;
  }
  return '';
}
