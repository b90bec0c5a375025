import { type FieldError } from '../common/problem/problem.js';
import { configurationInvalid } from './credential-configuration.errors.js';
import { configurationLimits } from './credential-configuration-limits.js';
import { type ClaimPathElement } from './dto/credential-display.dto.js';
import { type CredentialConfigurationBodyDto } from './dto/credential-configuration.dto.js';
import { type CredentialConfigurationDto } from './dto/credential-configuration-answer.dto.js';
import { type CredentialConfigurationEntity } from './credential-configuration.entity.js';

/**
 * What a configuration stores besides its keys and times: the body with every default applied. Its
 * key attestation requirement is read from the configuration at the credential request, not kept
 * with offers (docs/oid4vci.md), hence optional here; so is the doctype, which offers made before
 * mso_mdoc do not keep.
 */
export type ConfigurationDefinition = Partial<
  Pick<CredentialConfigurationEntity, 'keyAttestationsRequired' | 'doctype'>
> &
  Pick<
    CredentialConfigurationEntity,
    | 'format'
    | 'vct'
    | 'credentialDefinition'
    | 'claims'
    | 'display'
    | 'selectivelyDisclosable'
    | 'expiresInSeconds'
    | 'revocable'
    | 'signingAlgorithm'
    | 'cryptosuite'
    | 'claimsFromLogin'
  >;

const samePath = (a: ClaimPathElement[], b: ClaimPathElement[]) =>
  a.length === b.length && a.every((element, index) => element === b[index]);

/**
 * The rules between fields (OpenID4VCI 1.0 Appendix A): each format's own fields, claim paths that
 * are unique and, for ldp_vc, under `credentialSubject`, for mso_mdoc `[namespace, element]`; then
 * the defaults. Refuses with every field at once.
 */
export function definitionOf(body: CredentialConfigurationBodyDto): ConfigurationDefinition {
  const errors: FieldError[] = [];
  const refuse = (field: string, message: string) => errors.push({ field, message });
  const claims = body.claims ?? [];
  const sdJwt = body.format === 'dc+sd-jwt';
  const mdoc = body.format === 'mso_mdoc';
  if (sdJwt) {
    if (body.vct === undefined) refuse('vct', 'is required for dc+sd-jwt');
  } else if (mdoc) {
    checkMdoc(body, refuse);
  } else {
    if (body.credentialDefinition === undefined) {
      refuse('credentialDefinition', 'is required for ldp_vc');
    } else if (!body.credentialDefinition.type.includes('VerifiableCredential')) {
      refuse('credentialDefinition.type', 'must include VerifiableCredential');
    }
    if (body.signingAlgorithm !== undefined) refuse('signingAlgorithm', 'is for dc+sd-jwt only');
    if (body.selectivelyDisclosable !== undefined) {
      refuse('selectivelyDisclosable', 'is for dc+sd-jwt only');
    }
    claims.forEach((claim, index) => {
      if (claim.path[0] !== 'credentialSubject') {
        refuse(`claims.${index}.path`, "must start with 'credentialSubject' for ldp_vc");
      }
    });
  }
  if (!sdJwt && body.vct !== undefined) refuse('vct', 'is for dc+sd-jwt only');
  if (body.format !== 'ldp_vc') {
    if (body.credentialDefinition !== undefined)
      refuse('credentialDefinition', 'is for ldp_vc only');
    if (body.cryptosuite !== undefined) refuse('cryptosuite', 'is for ldp_vc only');
  }
  if (!mdoc && body.doctype !== undefined) refuse('doctype', 'is for mso_mdoc only');
  claims.forEach((claim, index) => {
    if (claims.findIndex((other) => samePath(other.path, claim.path)) < index) {
      refuse(`claims.${index}.path`, 'is the path of an earlier claim');
    }
  });
  (body.selectivelyDisclosable ?? []).forEach((path, index) => {
    if (!claims.some((claim) => samePath(claim.path, path))) {
      refuse(`selectivelyDisclosable.${index}`, 'must be the path of one of claims');
    }
  });
  checkClaimsFromLogin(body, refuse);
  if (errors.length > 0) throw configurationInvalid(errors);
  return {
    format: body.format,
    vct: sdJwt ? (body.vct ?? null) : null,
    doctype: mdoc ? (body.doctype ?? null) : null,
    credentialDefinition: body.format === 'ldp_vc' ? (body.credentialDefinition ?? null) : null,
    claims,
    display: body.display ?? [],
    selectivelyDisclosable: sdJwt
      ? (body.selectivelyDisclosable ?? claims.map((claim) => claim.path))
      : null,
    // An MSO always has a validUntil (ISO/IEC 18013-5 §9.1.2.4): a year unless the caller says.
    expiresInSeconds: body.expiresInSeconds ?? (mdoc ? mdocDefaultExpiresIn : null),
    revocable: body.revocable ?? true,
    signingAlgorithm: sdJwt || mdoc ? (body.signingAlgorithm ?? 'ES256') : null,
    cryptosuite: body.format === 'ldp_vc' ? (body.cryptosuite ?? 'eddsa-rdfc-2022') : null,
    claimsFromLogin: body.claimsFromLogin ?? null,
    keyAttestationsRequired: keyAttestationsOf(body.keyAttestationsRequired),
  };
}

/** How long an mdoc is valid when its configuration does not say: a year. */
export const mdocDefaultExpiresIn = 31_536_000;

/** A doctype or namespace: reverse-domain names as ISO/IEC 18013-5 §7.1 and the EU PID rulebook use. */
const mdocNamePattern = /^[A-Za-z0-9_.:-]{1,256}$/;

/**
 * mso_mdoc (OpenID4VCI 1.0 appendix A.2): a doctype, claims by `[namespace, element]`, signed with
 * ES256 (COSE -7). Every element is disclosed by the holder's own choice (ISO/IEC 18013-5 §8.3.2.1.2),
 * so `selectivelyDisclosable` has nothing to say; the login's claims are top-level names, not elements.
 */
function checkMdoc(
  body: CredentialConfigurationBodyDto,
  refuse: (field: string, message: string) => void,
): void {
  if (body.doctype === undefined) refuse('doctype', 'is required for mso_mdoc');
  else if (!mdocNamePattern.test(body.doctype))
    refuse('doctype', 'must be 1-256 characters of A-Z a-z 0-9 _ . : -');
  if (body.signingAlgorithm !== undefined && body.signingAlgorithm !== 'ES256')
    refuse('signingAlgorithm', 'must be ES256 for mso_mdoc (COSE -7)');
  if (body.selectivelyDisclosable !== undefined)
    refuse('selectivelyDisclosable', 'is for dc+sd-jwt only: every mdoc element is disclosable');
  if (body.claimsFromLogin !== undefined)
    refuse('claimsFromLogin', 'is not for mso_mdoc: its claims are namespaced elements');
  (body.claims ?? []).forEach((claim, index) => {
    const [namespace, element] = claim.path;
    if (
      claim.path.length !== 2 ||
      typeof namespace !== 'string' ||
      typeof element !== 'string' ||
      !mdocNamePattern.test(namespace)
    )
      refuse(`claims.${index}.path`, 'must be [namespace, element] for mso_mdoc');
  });
}

/** Only the spec's members, as given (Appendix D.1); absent: none required. */
function keyAttestationsOf(
  required: CredentialConfigurationBodyDto['keyAttestationsRequired'],
): CredentialConfigurationEntity['keyAttestationsRequired'] {
  if (required === undefined) return null;
  return {
    ...(required.key_storage === undefined ? {} : { key_storage: required.key_storage }),
    ...(required.user_authentication === undefined
      ? {}
      : { user_authentication: required.user_authentication }),
  };
}

const claimName = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * `claimsFromLogin` (docs/oid4vci.md): top-level credential claims (ldp_vc: of credentialSubject), each
 * one of `claims` when the configuration describes claims, each taken from one login claim by name.
 */
function checkClaimsFromLogin(
  body: CredentialConfigurationBodyDto,
  refuse: (field: string, message: string) => void,
): void {
  const mapping = body.claimsFromLogin;
  if (mapping === undefined || body.format === 'mso_mdoc') return;
  const claims = body.claims ?? [];
  const offset = body.format === 'ldp_vc' ? 1 : 0;
  const entries = Object.entries(mapping);
  if (entries.length === 0) refuse('claimsFromLogin', 'must map at least one claim');
  if (entries.length > configurationLimits.claims)
    refuse('claimsFromLogin', `must map at most ${configurationLimits.claims} claims`);
  for (const [credentialClaim, loginClaim] of entries.slice(0, configurationLimits.claims)) {
    const field = `claimsFromLogin.${credentialClaim.slice(0, 64)}`;
    if (!claimName.test(credentialClaim)) refuse(field, 'must name a top-level claim');
    else if (typeof loginClaim !== 'string' || !claimName.test(loginClaim))
      refuse(field, 'must be the name of a login claim (1-64 of A-Z a-z 0-9 _ . : -)');
    else if (claims.length > 0 && !claims.some((claim) => claim.path[offset] === credentialClaim))
      refuse(field, 'must be a claim of claims');
  }
}

/** A stored configuration's definition, as an offer keeps it (what the credential endpoint issues). */
export function configuredDefinitionOf(
  configuration: CredentialConfigurationDto,
): ConfigurationDefinition {
  return {
    format: configuration.format,
    vct: configuration.vct,
    doctype: configuration.doctype,
    credentialDefinition: configuration.credentialDefinition,
    claims: configuration.claims,
    display: configuration.display,
    selectivelyDisclosable: configuration.selectivelyDisclosable,
    expiresInSeconds: configuration.expiresInSeconds,
    revocable: configuration.revocable,
    signingAlgorithm: configuration.signingAlgorithm,
    cryptosuite: configuration.cryptosuite,
    claimsFromLogin: configuration.claimsFromLogin,
  };
}
