import { DidService } from '../src/did/did.service.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  addProof,
  alumniCredential,
  issue,
  issuePath,
  makeHolder,
  makeSigner,
  verifyPath,
  type Json,
} from './support/credentials-harness.js';

const presentationsPath = '/ctrl/api/v1.0/presentations/verify';

/**
 * What W3C test suites and the specifications ask of the issuer and verifier beyond the basics: VC API
 * `options.checks`, Data Integrity proof sets and chains, VC Data Model 2.0 issue-time shapes and
 * caller-given status entries. Credentials are the specification's example shapes.
 */
describe('Credentials: W3C conformance', () => {
  let service: TestService;
  let demoDid: string;

  beforeAll(async () => {
    service = await startTestService();
    demoDid = (await service.client().createTenant({ id: 'demo', label: 'Demo' })).did;
  });
  afterAll(() => service.close());

  const verify = (verifiableCredential: unknown, options?: unknown) =>
    service.request<Json>(verifyPath, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: options === undefined ? { verifiableCredential } : { verifiableCredential, options },
    });
  const verifyPresentation = (verifiablePresentation: unknown, options?: unknown) =>
    service.request<Json>(presentationsPath, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body:
        options === undefined ? { verifiablePresentation } : { verifiablePresentation, options },
    });
  const issued = async (extra: Json = {}, options?: Json) => {
    const response = await issue(service, 'demo', alumniCredential(extra), options);
    expect(response.status).toBe(201);
    return response.body.verifiableCredential;
  };
  const failedChecks = (body: Json) =>
    (body.problemDetails as { check: string }[]).map((problem) => problem.check);

  describe('options.checks', () => {
    it('accepts the suites\' {checks: ["proof"]} and reports the checks it ran', async () => {
      const response = await verify(await issued(), { checks: ['proof'] });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ verified: true, checks: ['proof', 'issuer'] });
      expect(response.body.issuer).toBe(demoDid);
    });

    it('runs validity and status only when asked (or when checks is absent)', async () => {
      const expired = await issued({ validUntil: '2020-01-01T00:00:00Z' });

      expect((await verify(expired, { checks: ['proof'] })).status).toBe(200);
      const asked = await verify(expired, { checks: ['proof', 'validity'] });
      expect(asked.status).toBe(422);
      expect(failedChecks(asked.body)).toEqual(['validity']);
      expect(asked.body.checks).toEqual(['proof', 'issuer', 'validity']);
      expect(failedChecks((await verify(expired)).body)).toEqual(['validity']);

      const fine = await verify(await issued(), { checks: ['status'] });
      expect(fine.body.checks).toEqual(['proof', 'issuer', 'status']);
    });

    it('always checks the proof and the issuer, whatever checks names', async () => {
      const credential = await issued();
      const changed = { ...credential, name: 'Changed' };
      const response = await verify(changed, { checks: ['validity'] });

      expect(response.status).toBe(422);
      expect(failedChecks(response.body)).toContain('proof');
    });

    it.each<[string, unknown, string]>([
      ['an unknown check', { checks: ['proof', 'magic'] }, 'options.checks'],
      ['checks that are not a list', { checks: 'proof' }, 'options.checks'],
      ['an unknown option', { checks: ['proof'], bogus: true }, 'options.bogus'],
      [
        'a challenge (the VC API defines none for credentials)',
        { challenge: 'x' },
        'options.challenge',
      ],
    ])('refuses %s with 400', async (_case, options, field) => {
      const response = await verify(await issued(), options);

      expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', verifyPath), [field]);
    });

    it('accepts checks, challenge and domain on a presentation and matches them to its proof', async () => {
      const holder = makeHolder();
      const presentation = await holder.present([await issued()], 'c-7', 'verifier.example');

      const ok = await verifyPresentation(presentation, {
        checks: ['proof'],
        challenge: 'c-7',
        domain: 'verifier.example',
      });
      expect(ok.status).toBe(200);
      const wrong = await verifyPresentation(presentation, { checks: ['proof'], challenge: 'c-8' });
      expect(wrong.status).toBe(422);
      expect(failedChecks(wrong.body)).toEqual(['challenge']);
      const unknown = await verifyPresentation(presentation, { checks: ['telepathy'] });
      expectFieldErrors(expectProblem(unknown, 400, 'VALIDATION_FAILED', presentationsPath), [
        'options.checks',
      ]);
    });
  });

  describe('proof sets and chains', () => {
    const unsigned = () =>
      alumniCredential({
        id: 'urn:uuid:3978344f-8596-4c3a-a978-8fcaba3903c5',
        issuer: demoDid,
        validFrom: '2026-01-01T00:00:00Z',
      });
    const issuerSigner = async () => (await service.app.get(DidService).signerFor('demo')).signer;

    it('accepts a chain whose first proof is by another key and a later one by the issuer', async () => {
      const stranger = makeSigner();
      const first = await addProof(unsigned(), stranger.signer, { id: 'urn:uuid:proof-1' });
      const chain = await addProof(first, await issuerSigner(), {
        id: 'urn:uuid:proof-2',
        previousProof: 'urn:uuid:proof-1',
      });

      const response = await verify(chain);
      expect(response.status).toBe(200);
      expect(response.body.proofs).toHaveLength(2);
      expect(response.body.issuer).toBe(demoDid);
    });

    it('accepts a proof set with one proof by the issuer and an endorsement', async () => {
      const set = await addProof(
        await addProof(unsigned(), makeSigner().signer),
        await issuerSigner(),
      );

      expect((await verify(set)).status).toBe(200);
    });

    it("refuses a set or chain none of whose proofs is the issuer's, naming the issuer check", async () => {
      const a = makeSigner();
      const b = makeSigner();
      const set = await addProof(await addProof(unsigned(), a.signer), b.signer);
      const chain = await addProof(
        await addProof(unsigned(), a.signer, { id: 'urn:uuid:p1' }),
        b.signer,
        {
          previousProof: 'urn:uuid:p1',
        },
      );

      for (const document of [set, chain]) {
        const response = await verify(document);
        expect(response.status).toBe(422);
        expect(failedChecks(response.body)).toEqual(['issuer']);
      }
    });

    it('refuses a chain when any proof fails: a changed endorsement, or a previousProof not present', async () => {
      const first = await addProof(unsigned(), makeSigner().signer, { id: 'urn:uuid:p1' });
      const chain = await addProof(first, await issuerSigner(), { previousProof: 'urn:uuid:p1' });
      const [endorsement, issuers] = chain.proof as Json[];
      // The issuer's proof signed the endorsement as it was: changing it breaks both.
      const changed = {
        ...chain,
        proof: [{ ...endorsement, created: '2020-01-01T00:00:00Z' }, issuers],
      };
      const dangling = { ...chain, proof: [issuers] };

      const both = await verify(changed);
      expect(both.status).toBe(422);
      expect(failedChecks(both.body)).toEqual(['proof', 'proof']);
      const missing = await verify(dangling);
      expect(missing.status).toBe(422);
      expect(failedChecks(missing.body)).toContain('proof');
    });

    it('keeps the cap on proofs: a fifth is 400', async () => {
      let document = unsigned();
      for (let count = 0; count < 5; count++)
        document = await addProof(document, makeSigner().signer);

      const response = await verify(document);
      expectFieldErrors(expectProblem(response, 400, 'CREDENTIAL_INVALID', verifyPath), [
        'verifiableCredential.proof',
      ]);
    });
  });

  describe('issue-time shapes', () => {
    const digest = 'sha384-S57yQDg1MTzF56Oi9DbSQ14u7jBy0RDdx0YbeV7shwhCS88G8SCXeFq82PafhCrW';

    it("signs the specification's refreshService, credentialSchema and relatedResource shapes", async () => {
      const credential = await issued({
        validFrom: '2026-01-01T00:00:00Z',
        validUntil: '2036-01-01T00:00:00Z',
        credentialSchema: {
          id: 'https://example.org/examples/degree.json',
          type: 'JsonSchema',
        },
        refreshService: {
          type: 'VerifiableCredentialRefreshService2021',
          url: 'https://university.example/workflows/refresh-degree',
        },
        relatedResource: [
          { id: 'https://www.w3.org/ns/credentials/v2', digestSRI: digest },
          {
            id: 'https://www.w3.org/ns/credentials/examples/v2',
            digestMultibase: 'uEiBZlVztZpfWHgPyslVv6-UwirFoQoRvW1htfx963sknNA',
          },
        ],
      });

      expect((await verify(credential)).status).toBe(200);
    });

    it.each<[string, Json, string[]]>([
      [
        'a refreshService without type',
        { refreshService: { url: 'https://x.example/r' } },
        ['credential.refreshService'],
      ],
      [
        'a credentialSchema without type',
        { credentialSchema: [{ id: 'https://x.example/s.json' }] },
        ['credential.credentialSchema'],
      ],
      [
        'a credentialSchema without a URL id',
        { credentialSchema: { type: 'JsonSchema', id: 'not a url' } },
        ['credential.credentialSchema.id'],
      ],
      [
        'a relatedResource that is a string',
        { relatedResource: 'https://x.example/r' },
        ['credential.relatedResource'],
      ],
      [
        'a relatedResource list with a non-object',
        { relatedResource: [{ id: 'https://x.example/a', digestSRI: digest }, 7] },
        ['credential.relatedResource'],
      ],
      [
        'a relatedResource without a URL id',
        { relatedResource: [{ digestSRI: digest }] },
        ['credential.relatedResource[0].id'],
      ],
      [
        'relatedResource entries with the same id',
        {
          relatedResource: [
            { id: 'https://x.example/a', digestSRI: digest },
            { id: 'https://x.example/a', digestSRI: digest },
          ],
        },
        ['credential.relatedResource[1].id'],
      ],
      [
        'a relatedResource without a digest',
        { relatedResource: { id: 'https://x.example/a' } },
        ['credential.relatedResource'],
      ],
      [
        'validFrom after validUntil',
        { validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-01-01T00:00:00Z' },
        ['credential.validUntil'],
      ],
    ])('refuses %s with 400 naming it, signing nothing', async (_case, extra, fields) => {
      const before = (await service.client().listCredentials('demo')).totalElements;
      const response = await issue(service, 'demo', alumniCredential(extra));

      expectFieldErrors(expectProblem(response, 400, 'CREDENTIAL_INVALID', issuePath), fields);
      expect((await service.client().listCredentials('demo')).totalElements).toBe(before);
    });
  });

  describe('caller-given credentialStatus', () => {
    // VC Data Model 2.0 Example 36's entry, on a list elsewhere.
    const elsewhere = {
      id: 'https://university.example/credentials/status/3#94567',
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '94567',
      statusListCredential: 'https://university.example/credentials/status/3',
    };
    const custom = { id: 'https://status.example/entries/1', type: 'ExampleStatusEntry' };

    it('signs an entry on a list elsewhere as given, with no entry of ours when none is asked', async () => {
      const credential = await issued({ credentialStatus: elsewhere }, { credentialStatus: [] });

      expect(credential.credentialStatus).toEqual(elsewhere);
      const response = await verify(credential, { checks: ['proof', 'validity'] });
      expect(response.status).toBe(200);
    });

    it('keeps attaching its own entries first; an entry type it does not manage fails the status check', async () => {
      const credential = await issued({ credentialStatus: [custom] });
      const entries = credential.credentialStatus as Json[];

      expect(entries).toHaveLength(2);
      expect(entries[0]).toMatchObject({
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
      });
      expect(entries[1]).toEqual(custom);
      expect((await verify(credential, { checks: ['proof'] })).status).toBe(200);
      const full = await verify(credential);
      expect(full.status).toBe(422);
      expect(failedChecks(full.body)).toEqual(['status']);
    });

    it('adds the status context to a 1.1 credential that gets entries of ours', async () => {
      const response = await issue(service, 'demo', {
        '@context': [
          'https://www.w3.org/2018/credentials/v1',
          'https://www.w3.org/2018/credentials/examples/v1',
        ],
        type: ['VerifiableCredential', 'UniversityDegreeCredential'],
        credentialSubject: {
          id: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
          degree: { type: 'BachelorDegree', name: 'Bachelor of Science and Arts' },
        },
        credentialStatus: elsewhere,
      });

      expect(response.status).toBe(201);
      const credential = response.body.verifiableCredential;
      expect(credential['@context']).toContain('https://www.w3.org/ns/credentials/status/v1');
      expect(credential.credentialStatus).toEqual([
        expect.objectContaining({ statusPurpose: 'revocation' }),
        elsewhere,
      ]);
    });

    it('refuses an entry that points into its own lists but was not allocated by it', async () => {
      const ours = (await issued()).credentialStatus as Json;
      const list = String(ours.statusListCredential);
      const forged = {
        ...elsewhere,
        id: `${list}#7`,
        statusListIndex: '7',
        statusListCredential: list,
      };
      const otherPath = {
        ...elsewhere,
        statusListCredential: `${list.slice(0, list.lastIndexOf('/'))}/anything`,
      };

      for (const credentialStatus of [forged, [custom, otherPath]]) {
        const response = await issue(service, 'demo', alumniCredential({ credentialStatus }));
        expectProblem(response, 400, 'CREDENTIAL_INVALID', issuePath);
        expect(JSON.stringify((response.body as Json).errors)).toContain('credentialStatus');
      }
    });

    it.each<[string, unknown, string]>([
      ['an entry without type', { id: 'https://status.example/1' }, 'credential.credentialStatus'],
      [
        'an entry whose id is not a URL',
        { type: 'ExampleStatusEntry', id: 'nope' },
        'credential.credentialStatus.id',
      ],
    ])('refuses %s with 400', async (_case, credentialStatus, field) => {
      const response = await issue(service, 'demo', alumniCredential({ credentialStatus }));

      expectFieldErrors(expectProblem(response, 400, 'CREDENTIAL_INVALID', issuePath), [field]);
    });
  });
});
