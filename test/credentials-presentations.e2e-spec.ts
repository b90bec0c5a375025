import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { alumniCredential, issue, makeHolder, type Json } from './support/credentials-harness.js';

const presentationsPath = '/ctrl/api/v1.0/presentations/verify';

describe('Presentations: verify', () => {
  let service: TestService;
  let credential: Json;
  const holder = makeHolder();

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    credential = (await issue(service, 'demo', alumniCredential())).body.verifiableCredential;
  });
  afterAll(() => service.close());

  const verifyPresentation = (verifiablePresentation: unknown, options?: Json) =>
    service.request<Json>(presentationsPath, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body:
        options === undefined ? { verifiablePresentation } : { verifiablePresentation, options },
    });
  const failedChecks = (body: Json) =>
    (body.problemDetails as { check: string }[]).map((problem) => problem.check);

  it('accepts a presentation with the expected challenge and domain, and its credential', async () => {
    const presentation = await holder.present([credential], 'c-1', 'verifier.example');
    const response = await verifyPresentation(presentation, {
      challenge: 'c-1',
      domain: 'verifier.example',
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      verified: true,
      credentials: [{ id: credential.id }],
    });
  });

  it('refuses a wrong challenge and a wrong domain, naming each', async () => {
    const presentation = await holder.present([credential], 'c-2', 'verifier.example');
    const response = await verifyPresentation(presentation, {
      challenge: 'another',
      domain: 'elsewhere.example',
    });

    expectProblem(response, 422, 'CREDENTIAL_NOT_VERIFIED', presentationsPath);
    expect(failedChecks(response.body)).toEqual(['challenge', 'domain']);
  });

  it('refuses a presentation whose credential was changed, naming the credential', async () => {
    const changed = { ...credential, name: 'Forged' };
    const presentation = await holder.present([changed], 'c-3');
    const response = await verifyPresentation(presentation, { challenge: 'c-3' });

    expect(response.status).toBe(422);
    expect(failedChecks(response.body)).toEqual(['credential']);
    expect(JSON.stringify(response.body.problemDetails)).toContain('verifiableCredential[0]');
  });

  it('refuses a presentation changed after the holder signed it', async () => {
    const presentation = await holder.present([credential], 'c-4');
    const response = await verifyPresentation(
      { ...presentation, id: 'urn:uuid:changed' },
      {
        challenge: 'c-4',
      },
    );

    expect(response.status).toBe(422);
    expect(failedChecks(response.body)).toEqual(['proof']);
  });

  it('refuses a presentation signed by someone other than its holder', async () => {
    const other = makeHolder();
    const presentation = await holder.present([credential], 'c-5', undefined, other.did);
    const response = await verifyPresentation(presentation, { challenge: 'c-5' });

    expect(response.status).toBe(422);
    expect(failedChecks(response.body)).toEqual(['holder']);
  });

  it('verifies through the typed client', async () => {
    const presentation = await holder.present([credential], 'c-6');
    const verification = await service.client('demo').verifyPresentation('demo', presentation, {
      challenge: 'c-6',
    });
    expect(verification.verified).toBe(true);
  });

  it('refuses what is not a presentation with 400', async () => {
    const response = await verifyPresentation({ type: ['VerifiablePresentation'] });
    expectProblem(response, 400, 'CREDENTIAL_INVALID', presentationsPath);
  });
});
