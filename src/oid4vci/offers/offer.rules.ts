import { randomInt } from 'node:crypto';
import { type FieldError } from '../../common/problem/problem.js';
import { elementValues } from '../../mdoc/elements.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { type ClaimPathElement } from '../dto/credential-display.dto.js';
import { type CreateOfferDto } from './dto/create-offer.dto.js';
import { type OfferGrant, type TxCodeDescription } from './offer.entity.js';
import { offerInvalid } from './offer.errors.js';
import { offerLimits as limits } from './offer-limits.js';

type Path = (string | number)[];

/**
 * Claims the credential itself carries, which the subject's claims must not set: the SD-JWT VC's
 * registered claims and the SD-JWT structure (SD-JWT VC §3.2.2, RFC 9901 §4.2), and for ldp_vc the
 * subject's `id`, which the holder's key gives.
 */
const reservedClaims: Record<ConfigurationDefinition['format'], readonly string[]> = {
  'dc+sd-jwt': [
    'iss',
    'iat',
    'nbf',
    'exp',
    'cnf',
    'vct',
    'vct#integrity',
    'status',
    '_sd',
    '_sd_alg',
    '...',
  ],
  ldp_vc: ['id'],
  // An mdoc's claims are namespaces: what the issuer sets lives in the MSO, not among them.
  mso_mdoc: [],
};

const fieldOf = (path: Path) => ['claims', ...path].join('.');

/** The claim paths of the configuration, relative to the subject's claims (ldp_vc: under credentialSubject). */
function describedPaths(configuration: ConfigurationDefinition): ClaimPathElement[][] {
  const paths = configuration.claims.map((claim) => claim.path);
  return configuration.format === 'ldp_vc' ? paths.map((path) => path.slice(1)) : paths;
}

/** A described path element matches a claim's: the same key or index, or null for any array element. */
const matches = (element: ClaimPathElement, given: string | number) =>
  element === null ? typeof given === 'number' : element === given;

const startsWith = (path: readonly (string | number)[], prefix: readonly ClaimPathElement[]) =>
  prefix.length <= path.length && prefix.every((element, index) => matches(element, path[index]));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How deeply objects and arrays nest in a JSON value (a scalar is 0). */
function depthOf(value: unknown, most: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, most));
    if (deepest > most) break;
  }
  return deepest + 1;
}

/**
 * The subject's claims against the configuration (OpenID4VCI 1.0 Appendix B.2): bounded in size and
 * depth; where the configuration describes claims, every claim is one it describes (or lies under one)
 * and every mandatory one is there. Refuses with every field at once.
 */
export function checkClaims(
  claims: Record<string, unknown>,
  configuration: ConfigurationDefinition,
  /** Top-level claims the person's login gives later (an authorization code offer): not mandatory here. */
  fromLogin: readonly string[] = [],
): void {
  const bytes = Buffer.byteLength(JSON.stringify(claims));
  if (bytes > limits.claimsBytes) {
    throw offerInvalid([
      {
        field: 'claims',
        message: `must be at most ${limits.claimsBytes} bytes of JSON (${bytes})`,
      },
    ]);
  }
  if (depthOf(claims, limits.claimsDepth) > limits.claimsDepth) {
    throw offerInvalid([
      { field: 'claims', message: `must nest at most ${limits.claimsDepth} levels deep` },
    ]);
  }
  const errors: FieldError[] = [];
  for (const name of reservedClaims[configuration.format]) {
    if (Object.hasOwn(claims, name)) {
      errors.push({ field: fieldOf([name]), message: 'is set by the issuer, not by the offer' });
    }
  }
  const described = describedPaths(configuration);
  if (configuration.claims.length > 0) {
    const walk = (value: unknown, path: Path) => {
      if (path.length > 0 && described.some((known) => startsWith(path, known))) return;
      const within = described.some(
        (known) => known.length > path.length && startsWith(path, known.slice(0, path.length)),
      );
      if (path.length > 0 && !within) {
        errors.push({
          field: fieldOf(path),
          message: 'is not a claim of the credential configuration',
        });
      } else if (Array.isArray(value)) {
        value.forEach((item, index) => walk(item, [...path, index]));
      } else if (isObject(value)) {
        for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
      } else {
        errors.push({
          field: fieldOf(path),
          message: 'must be an object: the configuration describes claims in it',
        });
      }
    };
    walk(claims, []);
    configuration.claims.forEach((claim, index) => {
      const later = fromLogin.includes(String(described[index][0]));
      if (claim.mandatory === true && !later && !present(claims, described[index])) {
        const shown = described[index].map((element) => element ?? '*');
        errors.push({
          field: fieldOf(shown),
          message: 'is mandatory in the credential configuration',
        });
      }
    });
  }
  if (errors.length > 0) throw offerInvalid(errors);
}

/**
 * An mdoc's claims (ISO/IEC 18013-5 §8.3.2.1.2.2): namespaces of elements, each value of the type its
 * element has (`full-date` for dates, bytes for portraits); a wrong one is named by its element.
 */
export function checkMdocElements(claims: Record<string, unknown>): void {
  const typed = elementValues(claims);
  if ('errors' in typed)
    throw offerInvalid(
      typed.errors.map(({ path, message }) => ({ field: fieldOf(path), message })),
    );
}

/** Whether the claims hold the path; null asks for a non-empty array whose every element holds the rest. */
function present(value: unknown, path: readonly ClaimPathElement[]): boolean {
  if (path.length === 0) return value !== undefined && value !== null;
  const [head, ...rest] = path;
  if (head === null) {
    return Array.isArray(value) && value.length > 0 && value.every((item) => present(item, rest));
  }
  if (typeof head === 'number') return Array.isArray(value) && present(value[head], rest);
  return isObject(value) && Object.hasOwn(value, head) && present(value[head], rest);
}

/** What the create body may say of the transaction code. */
export interface TxCodeRequest {
  length?: number;
  inputMode?: 'numeric' | 'text';
  description?: string;
}

/** Characters of a text transaction code: no 0/O, 1/I/l, easy to read out and type. */
const textAlphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/**
 * The transaction code's description (OpenID4VCI 1.0 §4.1.1 `tx_code`) and a fresh code drawn from
 * the CSPRNG: `true` asks for six digits. Null when none is asked for.
 */
export function drawTxCode(
  request: true | TxCodeRequest | undefined,
): { description: TxCodeDescription; code: string } | null {
  if (request === undefined) return null;
  const asked = request === true ? {} : request;
  const length = asked.length ?? limits.txCodeDefaultLength;
  const inputMode = asked.inputMode ?? 'numeric';
  const alphabet = inputMode === 'numeric' ? '0123456789' : textAlphabet;
  const code = Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
  return {
    description: {
      length,
      input_mode: inputMode,
      ...(asked.description === undefined ? {} : { description: asked.description }),
    },
    code,
  };
}

export const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * The Credential Offer object (OpenID4VCI 1.0 §4.1.1): of the pre-authorized code flow, or of the
 * authorization code flow, whose secret is then the `issuer_state` the wallet passes back (§5.1.3).
 */
export function credentialOfferOf(
  issuer: string,
  configurationId: string,
  preAuthorizedCode: string,
  txCode: TxCodeDescription | null,
  grant: OfferGrant = 'pre-authorized_code',
): Record<string, unknown> {
  if (grant === 'authorization_code')
    return {
      credential_issuer: issuer,
      credential_configuration_ids: [configurationId],
      grants: { authorization_code: { issuer_state: preAuthorizedCode } },
    };
  return {
    credential_issuer: issuer,
    credential_configuration_ids: [configurationId],
    grants: {
      [preAuthorizedGrant]: {
        'pre-authorized_code': preAuthorizedCode,
        ...(txCode === null ? {} : { tx_code: txCode }),
      },
    },
  };
}

/** Where a wallet fetches the offer by reference (OpenID4VCI 1.0 §4.1.3). */
export const offerUriOf = (issuer: string, reference: string) =>
  `${issuer}/credential-offers/${reference}`;

/** The link a wallet opens (OpenID4VCI 1.0 §4.1): the offer by value, or its URI. */
export function offerLinkOf(
  offer: Record<string, unknown>,
  offerUri: string,
  byValue: boolean,
): string {
  return byValue
    ? `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`
    : `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(offerUri)}`;
}

/** An authorization code offer: no transaction code (the login authenticates), claims from the login. */
export function checkGrant(input: CreateOfferDto, definition: ConfigurationDefinition): void {
  if (input.grant !== 'authorization_code') {
    if (input.subject !== undefined)
      throw offerInvalid([{ field: 'subject', message: 'is for the authorization_code grant' }]);
    return;
  }
  if (input.txCode !== undefined && input.txCode !== false)
    throw offerInvalid([{ field: 'txCode', message: 'is for the pre-authorized_code grant' }]);
  if (definition.claimsFromLogin === null)
    throw offerInvalid([
      {
        field: 'grant',
        message: 'authorization_code needs a credential configuration with claimsFromLogin',
      },
    ]);
}
