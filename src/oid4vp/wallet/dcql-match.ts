import { DcqlPresentationResult, DcqlQuery, type DcqlCredentialPresentation } from 'dcql';
import { type VerifiedPresentation } from '../../credentials/verifying/wallet-presentations.service.js';
import { AnswerFailure } from './wallet-answer.js';

/** The formats this verifier checks (src/credentials/wallet-presentations.service.ts). */
export type VerifiableFormat = VerifiedPresentation['format'];

/**
 * The request's DCQL query (validated when the request was made), each credential query's format,
 * and each mdoc query's doctype (`meta.doctype_value`, required by the API).
 */
export function queryOf(stored: Record<string, unknown>): {
  query: DcqlQuery;
  formats: Map<string, VerifiableFormat>;
  doctypes: Map<string, string>;
} {
  const query = DcqlQuery.parse(stored as DcqlQuery.Input);
  DcqlQuery.validate(query);
  const formats = new Map<string, VerifiableFormat>();
  const doctypes = new Map<string, string>();
  for (const credential of query.credentials) {
    // The API accepts no other format; a row from before a change of that rule fails plainly.
    if (
      credential.format !== 'dc+sd-jwt' &&
      credential.format !== 'ldp_vc' &&
      credential.format !== 'mso_mdoc'
    )
      throw new AnswerFailure(
        'query_not_satisfied',
        `Credential query ${credential.id} asks for ${credential.format}, which this verifier does not check.`,
      );
    formats.set(credential.id, credential.format);
    if (credential.format === 'mso_mdoc' && credential.meta?.doctype_value !== undefined)
      doctypes.set(credential.id, credential.meta.doctype_value);
  }
  return { query, formats, doctypes };
}

/**
 * What DCQL evaluates of a verified presentation: its format, vct, types or doctype, disclosed claims
 * (an mdoc's elements by namespace), binding, and for an x5c-signed SD-JWT VC or an mdoc the key
 * identifiers of its chain as its `aki` authority (§6.1.1).
 */
function dcqlPresentationOf(presented: VerifiedPresentation): DcqlCredentialPresentation {
  const authority =
    presented.x5c === undefined || presented.x5c.keyIdentifiers.length === 0
      ? {}
      : {
          authority: {
            type: 'aki' as const,
            values: presented.x5c.keyIdentifiers as [string, ...string[]],
          },
        };
  if (presented.format === 'dc+sd-jwt')
    return {
      credential_format: 'dc+sd-jwt',
      vct: presented.vct ?? '',
      claims: presented.claims as never,
      cryptographic_holder_binding: presented.holderBinding,
      ...authority,
    };
  if (presented.format === 'mso_mdoc')
    return {
      credential_format: 'mso_mdoc',
      doctype: presented.doctype ?? '',
      namespaces: presented.claims as never,
      cryptographic_holder_binding: presented.holderBinding,
      ...authority,
    };
  return {
    credential_format: 'ldp_vc',
    type: presented.types ?? [],
    claims: presented.claims as never,
    cryptographic_holder_binding: presented.holderBinding,
  };
}

/**
 * Whether the verified presentations answer the query (OpenID4VP 1.0 §6.3, §8.6): each one matches
 * its credential query (format, `vct_values` or `type_values`, every requested claim path or one of
 * the `claim_sets`, holder binding), and the required credential queries or credential sets are all
 * there. The reason names queries and claim paths, never a claim's value.
 */
export function checkMatch(query: DcqlQuery, verified: Map<string, VerifiedPresentation[]>): void {
  const record = Object.fromEntries(
    [...verified].map(([id, presentations]) => [id, presentations.map(dcqlPresentationOf)]),
  );
  let result: DcqlPresentationResult;
  try {
    result = DcqlPresentationResult.fromDcqlPresentation(record, { dcqlQuery: query });
  } catch {
    // The library refuses claims it cannot walk (an own `__proto__` member, say): they answer nothing.
    throw new AnswerFailure(
      'query_not_satisfied',
      'The disclosed claims could not be matched against the query.',
    );
  }
  for (const [id, presentations] of verified) {
    const match = result.credential_matches[id];
    if (match?.success === true && match.valid_credentials.length === presentations.length)
      continue;
    throw new AnswerFailure('query_not_satisfied', mismatchOf(query, id, match));
  }
  if (!result.can_be_satisfied)
    throw new AnswerFailure(
      'query_not_satisfied',
      `The answer lacks a credential the query requires (asked for: ${query.credentials.map((c) => c.id).join(', ')}; given: ${[...verified.keys()].join(', ')}).`,
    );
}

type Match = DcqlPresentationResult['credential_matches'][string] | undefined;

function mismatchOf(query: DcqlQuery, id: string, match: Match): string {
  const failed = match?.success === false ? match.failed_credentials?.[0] : undefined;
  if (failed?.trusted_authorities.success === false)
    return `A credential for ${id} has no x5c certificate with a key identifier the query's trusted_authorities name.`;
  if (failed?.meta.success === false)
    return `A credential for ${id} is not of a kind the query accepts (vct, type or doctype, or holder binding).`;
  if (failed?.claims.success === false) {
    const claims = query.credentials.find((credential) => credential.id === id)?.claims ?? [];
    const indexes = new Set((failed.claims.failed_claims ?? []).map((claim) => claim.claim_index));
    const paths = claims
      .filter((_claim, index) => indexes.has(index))
      .map((claim) => ('path' in claim ? claim.path : [claim.namespace, claim.claim_name]))
      .map((path) => path.map(String).join('.'));
    return paths.length > 0
      ? `A credential for ${id} does not disclose the requested claim ${paths.join(', ')}.`
      : `A credential for ${id} does not disclose the claims the query requests.`;
  }
  return `A credential for ${id} does not match its credential query.`;
}

/** More than one presentation for a query is for queries that say `multiple` (OpenID4VP 1.0 §6.1). */
export function checkCounts(query: DcqlQuery, presentations: Map<string, unknown[]>): void {
  for (const credential of query.credentials) {
    const count = presentations.get(credential.id)?.length ?? 0;
    if (count > 1 && credential.multiple !== true)
      throw new AnswerFailure(
        'query_not_satisfied',
        `Credential query ${credential.id} asks for one credential; the answer gives ${count}.`,
      );
  }
}
