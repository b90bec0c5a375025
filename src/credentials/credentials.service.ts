import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import jsonld from 'jsonld';
import { type Actor } from '../auth/caller.js';
import { DidService } from '../did/did.service.js';
import {
  checkProblemTypes,
  credentialInvalid,
  jsonLdProblem,
  notVerified,
  type CheckProblem,
} from './credential.errors.js';
import { credentialShapeErrors, issuerIdOf, validityProblem } from './credential-checks.js';
import { signCredential, signingCryptosuites, verifyProofs } from './data-integrity.js';
import { DOCUMENT_LOADER } from './document-loader.js';
import {
  type IssueCredentialDto,
  type VerifyCredentialDto,
} from './dto/credential-requests.dto.js';
import { type VerificationDto } from './dto/credential-answers.dto.js';

type Json = Record<string, unknown>;

@Injectable()
export class CredentialsService {
  private readonly logger = new Logger('Credentials');

  constructor(
    private readonly dids: DidService,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
  ) {}

  /** Signs a credential with the tenant's DID; the credential is not stored. */
  async issue(
    tenantId: string,
    actor: Actor,
    { credential: submitted, options = {} }: IssueCredentialDto,
  ): Promise<Json> {
    const errors = credentialShapeErrors(submitted, 'credential.');
    for (const member of ['proof', 'credentialStatus']) {
      if (member in submitted) {
        errors.push({
          field: `credential.${member}`,
          message: 'must be absent: the service adds it',
        });
      }
    }
    if (
      submitted.id !== undefined &&
      options.credentialId !== undefined &&
      submitted.id !== options.credentialId
    ) {
      errors.push({ field: 'options.credentialId', message: 'differs from credential.id' });
    }
    if (submitted.id !== undefined && typeof submitted.id !== 'string') {
      errors.push({ field: 'credential.id', message: 'must be a URI' });
    }
    const tenant = await this.dids.signerFor(tenantId);
    if (submitted.issuer !== undefined && issuerIdOf(submitted) !== tenant.did) {
      errors.push({
        field: 'credential.issuer',
        message: `must be the tenant's DID ${tenant.did}`,
      });
    }
    if (errors.length > 0) throw credentialInvalid(errors);

    const credential: Json = {
      ...submitted,
      id: submitted.id ?? options.credentialId ?? `urn:uuid:${randomUUID()}`,
      issuer: submitted.issuer ?? tenant.did,
    };
    await this.expand(credential, 'credential');
    const cryptosuite = options.cryptosuite ?? signingCryptosuites[0];
    let signed: Json;
    try {
      signed = await signCredential(credential, {
        signer: tenant.signer,
        cryptosuite,
        date: new Date(),
        documentLoader: this.documentLoader,
      });
    } catch (error) {
      throw jsonLdProblem(error, 'credential') ?? error;
    }
    this.logger.log({
      reqId: actor.requestId,
      msg: `audit credential.issue ${tenantId} by ${actor.username ?? actor.subject}`,
      audit: 'credential.issue',
      tenantId,
      actor: actor.username ?? actor.subject,
      credentialId: credential.id,
      cryptosuite,
    });
    return signed;
  }

  /** Every check of a secured credential; throws CREDENTIAL_NOT_VERIFIED naming each that failed. */
  async verify(
    tenantId: string,
    { verifiableCredential: credential }: VerifyCredentialDto,
  ): Promise<VerificationDto> {
    // The tenant rules of every tenant-scoped route: an unknown tenant is 404 here too.
    await this.dids.getDid(tenantId);
    const errors = credentialShapeErrors(credential, 'verifiableCredential.');
    if (credential.proof === undefined) {
      errors.push({ field: 'verifiableCredential.proof', message: 'is required' });
    }
    if (errors.length > 0) throw credentialInvalid(errors);
    await this.expand(credential, 'verifiableCredential');

    const checks = ['proof', 'issuer', 'validity'];
    const problems: CheckProblem[] = [];
    const proofs = await verifyProofs(credential, this.documentLoader);
    if (proofs.length === 0) {
      problems.push({
        type: checkProblemTypes.proof,
        check: 'proof',
        title: 'Proof verification failed',
        detail: 'the credential carries no proof object',
      });
    }
    for (const result of proofs.filter((one) => !one.verified)) {
      problems.push({
        type: checkProblemTypes.proof,
        check: 'proof',
        title: 'Proof verification failed',
        detail: `${describeProof(result.proof)}: ${result.error ?? 'invalid'}`,
      });
    }
    const issuerProblem = await this.issuerProblem(
      credential,
      proofs.map((one) => one.proof),
    );
    if (issuerProblem !== undefined) {
      problems.push({
        type: checkProblemTypes.issuer,
        check: 'issuer',
        title: 'Not signed by the issuer',
        detail: issuerProblem,
      });
    }
    const validity = validityProblem(credential, new Date());
    if (validity !== undefined) {
      problems.push({
        type: checkProblemTypes.validity,
        check: 'validity',
        title: 'Outside its validity period',
        detail: validity,
      });
    }
    if (problems.length > 0) throw notVerified(checks, problems);
    return { verified: true, checks, proofs: proofs.map((one) => one.proof), warnings: [] };
  }

  /**
   * The proofs that start a chain (those without `previousProof`: all of a plain proof set) must be
   * made for `assertionMethod` with a key the issuer's DID lists for it.
   */
  private async issuerProblem(credential: Json, proofs: Json[]): Promise<string | undefined> {
    const issuer = issuerIdOf(credential);
    if (issuer === undefined) return 'the credential names no issuer';
    let document: Json;
    try {
      document = (await this.documentLoader(issuer)).document as Json;
    } catch (error) {
      return error instanceof Error && error.name === 'UnresolvableDidError'
        ? error.message
        : `the issuer '${issuer}' is not a DID this service resolves (only did:key)`;
    }
    const allowed = new Set(
      (Array.isArray(document.assertionMethod) ? document.assertionMethod : []).map((method) =>
        typeof method === 'string' ? method : (method as Json).id,
      ),
    );
    for (const proof of proofs.filter((one) => one.previousProof === undefined)) {
      const method = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
      if (proof.proofPurpose !== 'assertionMethod') {
        return `${describeProof(proof)} is for '${String(proof.proofPurpose)}', not assertionMethod`;
      }
      if (!allowed.has(method)) {
        return `${describeProof(proof)}: the key '${method}' is not an assertion method of ${issuer}`;
      }
    }
    return undefined;
  }

  /** JSON-LD expansion in safe mode: an unknown context or an undefined term is refused, by name. */
  private async expand(document: Json, field: string): Promise<void> {
    try {
      await jsonld.expand(document, { documentLoader: this.documentLoader, safe: true });
    } catch (error) {
      throw jsonLdProblem(error, field) ?? error;
    }
  }
}

function describeProof(proof: Json): string {
  const name = proof.cryptosuite ?? proof.type;
  return typeof proof.id === 'string'
    ? `proof ${proof.id} (${String(name)})`
    : `proof (${String(name)})`;
}
