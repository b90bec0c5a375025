import { type FieldError } from '../../common/problem/problem.js';
import { statusListContext, statusPurposes, type StatusPurpose } from '../status/bitstring.js';
import {
  asArray,
  credentialShapeErrors,
  dataModelOf,
  isJsonObject,
  issueShapeErrors,
  issuerIdOf,
  isUrl,
} from '../credential-checks.js';
import { type IssueOptionsDto } from '../dto/credential-requests.dto.js';
import { verificationLimits } from '../verification-limits.js';

type Json = Record<string, unknown>;

/**
 * What is wrong with a credential to issue as the caller gave it, before the tenant's DID is known;
 * `ourLists` is the URL under which this service's status lists are published.
 */
export function submittedErrors(
  submitted: Json,
  options: IssueOptionsDto,
  ourLists: string,
): FieldError[] {
  const errors = credentialShapeErrors(submitted, 'credential.');
  errors.push(...issueShapeErrors(submitted, 'credential.'));
  if ('proof' in submitted) {
    errors.push({ field: 'credential.proof', message: 'must be absent: the service adds it' });
  }
  errors.push(...givenStatusErrors(submitted.credentialStatus, ourLists));
  if (
    submitted.id !== undefined &&
    options.credentialId !== undefined &&
    submitted.id !== options.credentialId
  ) {
    errors.push({ field: 'options.credentialId', message: 'differs from credential.id' });
  }
  return errors;
}

/** The credential's issuer, when it names one, must be the tenant's DID. */
export function issuerErrors(submitted: Json, did: string): FieldError[] {
  return isIssuer(requiredIssuer(submitted), did)
    ? []
    : [{ field: 'credential.issuer', message: `must be the tenant's DID ${did}` }];
}

/**
 * The DID the credential names as its issuer, which must be the tenant's; null: it names none. An
 * issuer without an id gives '', which no DID is.
 */
export function requiredIssuer(submitted: Json): string | null {
  return submitted.issuer === undefined ? null : (issuerIdOf(submitted) ?? '');
}

/** Whether `did` may issue a credential that names `issuer` (`requiredIssuer`). */
export function isIssuer(issuer: string | null, did: string): boolean {
  return issuer === null || issuer === did;
}

/**
 * Status entries the caller gives are signed as given, and not managed here (no revocation through
 * our endpoints); one that points into our own lists could only claim an index we did not allocate.
 */
function givenStatusErrors(given: unknown, ourLists: string): FieldError[] {
  const errors: FieldError[] = [];
  const ours = new URL(ourLists);
  const intoOurLists = (url: unknown) => {
    if (typeof url !== 'string' || !URL.canParse(url)) return false;
    const parsed = new URL(url);
    return parsed.origin === ours.origin && parsed.pathname.startsWith(ours.pathname);
  };
  for (const [index, entry] of asArray(given).entries()) {
    const field = `credential.credentialStatus${Array.isArray(given) ? `[${index}]` : ''}`;
    if (!isJsonObject(entry)) continue; // credentialShapeErrors names it
    if (entry.id !== undefined && !isUrl(entry.id)) {
      errors.push({ field: `${field}.id`, message: 'must be a URL' });
    }
    if (entry.type === 'BitstringStatusListEntry')
      errors.push(...bitstringEntryErrors(entry, field));
    if (intoOurLists(entry.statusListCredential) || intoOurLists(entry.id)) {
      errors.push({
        field: `${field}.statusListCredential`,
        message:
          "must not point into this service's status lists: ask for an entry with options.credentialStatus",
      });
    }
  }
  return errors;
}

/** What Bitstring Status List §2.1 asks of an entry, so that a verifier can read it at all. */
function bitstringEntryErrors(entry: Json, field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof entry.statusPurpose !== 'string' || entry.statusPurpose === '') {
    errors.push({ field: `${field}.statusPurpose`, message: 'is required' });
  }
  if (typeof entry.statusListIndex !== 'string' || !/^\d{1,10}$/.test(entry.statusListIndex)) {
    errors.push({
      field: `${field}.statusListIndex`,
      message: 'must be a whole number as a string',
    });
  }
  if (!isUrl(entry.statusListCredential)) {
    errors.push({ field: `${field}.statusListCredential`, message: 'must be a URL' });
  }
  return errors;
}

/**
 * The purposes to attach: options.credentialStatus when given, else the deployment's `defaults`; with
 * the `given` entries they must stay within the limit. Their errors are added to `errors`.
 */
export function requestedPurposes(
  requested: unknown,
  defaults: readonly StatusPurpose[],
  given: unknown[],
  errors: FieldError[],
): StatusPurpose[] {
  const purposes = requested === undefined ? [...defaults] : purposesOf(requested, errors);
  if (given.length + purposes.length > verificationLimits.statusEntries) {
    errors.push({
      field: 'credential.credentialStatus',
      message: `and the service's entries (${purposes.length}) are more than ${verificationLimits.statusEntries}`,
    });
  }
  return purposes;
}

function purposesOf(requested: unknown, errors: FieldError[]): StatusPurpose[] {
  const purposes: StatusPurpose[] = [];
  for (const [index, entry] of asArray(requested).entries()) {
    const { type, statusPurpose, ...rest } = (entry ?? {}) as Json;
    if (
      type !== 'BitstringStatusListEntry' ||
      !statusPurposes.includes(statusPurpose as StatusPurpose) ||
      Object.keys(rest).length > 0
    ) {
      errors.push({
        field: `options.credentialStatus[${index}]`,
        message: `must be {"type": "BitstringStatusListEntry", "statusPurpose": ${statusPurposes.map((p) => `"${p}"`).join(' or ')}}`,
      });
    } else if (!purposes.includes(statusPurpose as StatusPurpose)) {
      purposes.push(statusPurpose as StatusPurpose);
    }
  }
  // One order for every issue: its lists' rows are then always locked in the same order.
  return statusPurposes.filter((purpose) => purposes.includes(purpose));
}

/** VC 1.1's context does not define the status entry's terms: its credentials name the status context. */
export function withStatusContext(credential: Json): void {
  const contexts: unknown = credential['@context'];
  if (dataModelOf(credential) !== 1 || !Array.isArray(contexts)) return;
  if (!contexts.includes(statusListContext)) {
    credential['@context'] = [...(contexts as unknown[]), statusListContext];
  }
}
