import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type Actor } from '../auth/caller.js';
import { DidService } from '../did/did.service.js';
import { credentialInvalid, jsonLdProblem, notVerified } from './credential.errors.js';
import { credentialShapeErrors, issuerIdOf } from './credential-checks.js';
import { CredentialVerifier } from './credential-verifier.js';
import { signCredential, signingCryptosuites } from './data-integrity.js';
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
    private readonly verifier: CredentialVerifier,
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
    await this.verifier.expand(credential, 'credential');
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
    const { proofs, problems } = await this.verifier.inspectCredential(
      credential,
      'verifiableCredential',
    );
    const checks = ['proof', 'issuer', 'validity'];
    if (problems.length > 0) throw notVerified(checks, problems);
    return { verified: true, checks, proofs, warnings: [] };
  }
}
