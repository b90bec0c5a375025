import fc from 'fast-check';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  alumniCredential,
  issue,
  issuePath,
  makeHolder,
  probeDuring,
  verifyCredential,
  verifyPath,
  type Json,
} from './support/credentials-harness.js';

const runs = { numRuns: Number(process.env.PROPERTY_RUNS ?? 80) };

/** A valid credential with some members replaced or removed by arbitrary JSON (fast-check). */
const credentialShapes = fc
  .record(
    {
      '@context': fc.oneof(
        fc.jsonValue(),
        fc.constant(['https://www.w3.org/ns/credentials/v2', 'https://example.org/unknown']),
        fc.constant(['https://www.w3.org/2018/credentials/v1']),
        fc.constant('https://www.w3.org/ns/credentials/v2'),
      ),
      type: fc.oneof(fc.jsonValue(), fc.constant(['VerifiableCredential', 'Other'])),
      id: fc.oneof(fc.jsonValue(), fc.webUrl(), fc.constant('not a uri')),
      issuer: fc.jsonValue(),
      validFrom: fc.oneof(
        fc.jsonValue(),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      ),
      validUntil: fc.oneof(fc.jsonValue(), fc.constant('2020-01-01T00:00:00Z')),
      credentialSubject: fc.oneof(
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.constant({}),
        fc.record({ id: fc.oneof(fc.jsonValue(), fc.constant('not a uri')), name: fc.string() }),
      ),
      evidence: fc.oneof(fc.jsonValue(), fc.constant({ id: 'not a uri', type: ['Evidence'] })),
      termsOfUse: fc.jsonValue(),
      proof: fc.jsonValue(),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  )
  .map((changes) => ({ ...alumniCredential(), ...(changes as Json) }));

/** Issuing and verifying arbitrary credential shapes: never a 5xx, always a problem body on a refusal. */
describe('robustness of the credential routes under arbitrary input', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
  });
  afterAll(() => service.close());

  it('issues only what then verifies, and refuses the rest with a 400 problem', async () => {
    await fc.assert(
      fc.asyncProperty(credentialShapes, async (credential) => {
        const response = await issue(service, 'demo', credential);
        if (response.status === 201) {
          const issued = response.body.verifiableCredential;
          const verified = await verifyCredential(service, 'demo', issued);
          expect([200, 422]).toContain(verified.status);
          // Only its own validity period may fail a credential the service has just signed.
          if (verified.status === 422) {
            const failed = (verified.body.problemDetails as { check: string }[]).map(
              (p) => p.check,
            );
            expect(failed).toEqual(['validity']);
          }
          return;
        }
        expect(response.status).toBe(400);
        expectProblem(
          response,
          400,
          (response.body as unknown as { code: string }).code,
          issuePath,
        );
      }),
      runs,
    );
  });

  it('answers any verify body without a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(credentialShapes, fc.jsonValue()), async (verifiableCredential) => {
        const response = await verifyCredential(service, 'demo', verifiableCredential);
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) {
          expectProblem(
            response,
            response.status,
            (response.body as { code: string }).code,
            verifyPath,
          );
        }
      }),
      runs,
    );
  });
});

/**
 * One caller must not stall the service for everyone: what a verification would decode or
 * canonicalize is bounded before any library reads it, and the rest leaves the event loop free.
 */
describe('bounded work of a verification', () => {
  const presentationsPath = '/ctrl/api/v1.0/presentations/verify';
  let service: TestService;
  let credential: Json;
  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    await service.client().createTenant({ id: 'other', label: 'Other' });
    credential = (await issue(service, 'demo', alumniCredential())).body.verifiableCredential;
  });
  afterAll(() => service.close());

  const verifyPresentation = (verifiablePresentation: unknown) =>
    service.request<Json>(presentationsPath, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { verifiablePresentation },
    });
  /** A base58btc proofValue about a thousand times an Ed25519 signature's 88 characters. */
  const longProofValue = `z${'2'.repeat(96_000)}`;
  const withProof = (document: Json, changes: Json): Json => ({
    ...document,
    proof: { ...(document.proof as Json), ...changes },
  });

  it('refuses a long base58 proofValue before decoding it, while others are still answered', async () => {
    const forged = withProof(credential, { proofValue: longProofValue });
    // Before the limit each took seconds of base58 decoding on the event loop.
    const { result } = await probeDuring(service, 'other', () =>
      Promise.all(Array.from({ length: 8 }, () => verifyCredential(service, 'demo', forged))),
    );

    for (const response of result) {
      expectProblem(response, 400, 'CREDENTIAL_INVALID', verifyPath);
      expect(response.body.errors).toEqual([
        {
          field: 'verifiableCredential.proof.proofValue',
          message: expect.stringContaining('longer than 100 characters'),
        },
      ]);
    }
  });

  it("refuses a presentation's long proofValue, and its credential's, the same way", async () => {
    const presentation = await makeHolder().present([credential], 'c-1');
    const forgedPresentation = withProof(presentation, { proofValue: longProofValue });
    const forgedCredential = {
      ...presentation,
      verifiableCredential: [withProof(credential, { proofValue: longProofValue })],
    };
    const { result } = await probeDuring(service, 'other', () =>
      Promise.all([
        ...Array.from({ length: 4 }, () => verifyPresentation(forgedPresentation)),
        ...Array.from({ length: 4 }, () => verifyPresentation(forgedCredential)),
      ]),
    );

    const fields = result.map((response) => {
      expectProblem(response, 400, 'CREDENTIAL_INVALID', presentationsPath);
      return (response.body.errors as { field: string }[]).map((error) => error.field);
    });
    expect(fields).toEqual([
      ...Array.from({ length: 4 }, () => ['verifiablePresentation.proof.proofValue']),
      ...Array.from({ length: 4 }, () => [
        'verifiablePresentation.verifiableCredential[0].proof.proofValue',
      ]),
    ]);
  });

  /** A credentialSubject of `count` indistinguishable objects: blank nodes RDF canonicalization cannot tell apart. */
  const identicalObjects = (count: number) => ({
    id: 'did:example:abcdefgh',
    items: Array.from({ length: count }, () => ({ a: 'x' })),
  });
  const errorsOf = (response: { body: unknown }) => (response.body as Json).errors;

  it('refuses a credential of thousands of identical objects before canonicalizing it', async () => {
    // Canonicalizing ~8,000 indistinguishable blank nodes held the event loop for seconds.
    const { result } = await probeDuring(service, 'other', () =>
      Promise.all(
        [8_000, 600].map((count) =>
          verifyCredential(service, 'demo', {
            ...credential,
            credentialSubject: identicalObjects(count),
          }),
        ),
      ),
    );

    const [wholeBody, credentialOnly] = result;
    expectProblem(wholeBody, 400, 'VALIDATION_FAILED', verifyPath);
    expect(errorsOf(wholeBody)).toEqual([
      { field: 'body', message: 'has more than 2000 JSON values' },
    ]);
    expectProblem(credentialOnly, 400, 'CREDENTIAL_INVALID', verifyPath);
    expect(errorsOf(credentialOnly)).toEqual([
      { field: 'verifiableCredential', message: 'has more than 1000 JSON values' },
    ]);
  });

  it('refuses to issue a credential of thousands of identical objects before signing it', async () => {
    const { result } = await probeDuring(service, 'other', () =>
      Promise.all(
        [8_000, 480].map((count) =>
          issue(service, 'demo', alumniCredential({ credentialSubject: identicalObjects(count) })),
        ),
      ),
    );

    const [wholeBody, credentialOnly] = result;
    expectProblem(wholeBody, 400, 'VALIDATION_FAILED', issuePath);
    expectProblem(credentialOnly, 400, 'CREDENTIAL_INVALID', issuePath);
    expect(errorsOf(credentialOnly)).toEqual([
      { field: 'credential', message: 'has more than 950 JSON values' },
    ]);
  });

  it('verifies the largest credential allowed, four proofs of it, with the others still answered', async () => {
    const proof = credential.proof as Json;
    const largest = {
      ...credential,
      credentialSubject: identicalObjects(450),
      proof: ['a', 'b', 'c', 'd'].map((id) => ({ ...proof, id: `urn:proof:${id}` })),
    };
    const { result } = await probeDuring(service, 'other', () =>
      Promise.all(Array.from({ length: 4 }, () => verifyCredential(service, 'demo', largest))),
    );

    for (const response of result) {
      expect(response.status).toBe(422);
      const details = response.body.problemDetails as { check: string }[];
      expect(details.map((problem) => problem.check)).toEqual(['proof', 'proof', 'proof', 'proof']);
    }
  });

  it.each<[string, (document: Json) => Json, string, string]>([
    [
      'more than 4 proofs',
      (document) => ({ ...document, proof: Array.from({ length: 5 }, () => document.proof) }),
      'verifiableCredential.proof',
      'more than 4 proofs',
    ],
    [
      'a verificationMethod over 2048 characters',
      (document) => withProof(document, { verificationMethod: `did:key:z${'6'.repeat(3_000)}` }),
      'verifiableCredential.proof.verificationMethod',
      'longer than 2048 characters',
    ],
    [
      'an issuer over 2048 characters',
      (document) => ({ ...document, issuer: `did:key:z${'6'.repeat(3_000)}` }),
      'verifiableCredential.issuer',
      'longer than 2048 characters',
    ],
    [
      'more than 16 contexts',
      (document) => ({
        ...document,
        '@context': [
          ...(document['@context'] as string[]),
          ...Array.from({ length: 15 }, () => 'https://www.w3.org/ns/credentials/examples/v2'),
        ],
      }),
      'verifiableCredential.@context',
      'more than 16 entries',
    ],
    [
      'more than 8 status entries',
      (document) => ({
        ...document,
        credentialStatus: Array.from({ length: 9 }, () => document.credentialStatus),
      }),
      'verifiableCredential.credentialStatus',
      'more than 8 entries',
    ],
  ])('refuses a credential with %s, naming the limit', async (_case, change, field, message) => {
    const response = await verifyCredential(service, 'demo', change(credential));
    expectProblem(response, 400, 'CREDENTIAL_INVALID', verifyPath);
    expect(response.body.errors).toEqual([{ field, message: expect.stringContaining(message) }]);
  });

  it('refuses a presentation of more than 8 credentials, naming the limit', async () => {
    const presentation = await makeHolder().present(
      Array.from({ length: 9 }, () => credential),
      'c-2',
    );
    const response = await verifyPresentation(presentation);
    expectProblem(response, 400, 'CREDENTIAL_INVALID', presentationsPath);
    expect(response.body.errors).toEqual([
      {
        field: 'verifiablePresentation.verifiableCredential',
        message: expect.stringContaining('more than 8 credentials'),
      },
    ]);
  });
});
