import fc from 'fast-check';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  alumniCredential,
  issue,
  issuePath,
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
