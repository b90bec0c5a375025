import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metrics } from '../src/observability/metrics.js';
import { queryDatabase } from './support/database.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  alumniCredential,
  examplesV2,
  issue,
  issuePath,
  verifiesPerJcsSpec,
  verifyCredential,
  verifyPath,
  type Json,
} from './support/credentials-harness.js';

/** Issuing and verifying W3C credentials through the API: real HTTP, real PostgreSQL. */
describe('Credentials: issue and verify', () => {
  let service: TestService;
  let demoDid: string;

  beforeAll(async () => {
    service = await startTestService();
    demoDid = (await service.client().createTenant({ id: 'demo', label: 'Demo' })).did;
    await service.client().createTenant({ id: 'other', label: 'Other' });
  });
  afterAll(() => service.close());

  /** What the tenant's issues wrote: records, status entries and events; a refusal adds none. */
  const writtenFor = async (tenantId: string) =>
    (
      await queryDatabase<{ records: string; entries: string; events: string }>(
        service.databaseUrl,
        `SELECT (SELECT count(*) FROM issued_credential WHERE tenant_id = $1) AS records,
                (SELECT count(*) FROM credential_status_entry WHERE tenant_id = $1) AS entries,
                (SELECT count(*) FROM webhook_event WHERE tenant_id = $1) AS events`,
        [tenantId],
      )
    )[0];

  describe('POST /credentials/issue', () => {
    it.each(['eddsa-rdfc-2022', 'eddsa-jcs-2022'])(
      'signs with the tenant DID (%s) and the credential verifies',
      async (cryptosuite) => {
        const response = await issue(service, 'demo', alumniCredential(), { cryptosuite });

        expect(response.status).toBe(201);
        const issued = response.body.verifiableCredential;
        const multibase = demoDid.slice('did:key:'.length);
        expect(issued).toEqual({
          ...alumniCredential(),
          id: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
          issuer: demoDid,
          credentialStatus: expect.objectContaining({ type: 'BitstringStatusListEntry' }),
          proof: expect.objectContaining({
            type: 'DataIntegrityProof',
            cryptosuite,
            verificationMethod: `${demoDid}#${multibase}`,
            proofPurpose: 'assertionMethod',
            proofValue: expect.stringMatching(/^z[1-9A-HJ-NP-Za-km-z]{80,90}$/),
          }),
        });
        const created = Date.parse((issued.proof as Json).created as string);
        expect(Math.abs(Date.now() - created)).toBeLessThan(60_000);

        const verified = await verifyCredential(service, 'demo', issued);
        expect(verified.status).toBe(200);
        expect(verified.body).toMatchObject({
          verified: true,
          checks: ['proof', 'issuer', 'validity', 'status'],
        });
      },
    );

    it('an eddsa-jcs-2022 credential verifies with a check written from the specification', async () => {
      const response = await issue(service, 'demo', alumniCredential(), {
        cryptosuite: 'eddsa-jcs-2022',
      });
      const issued = response.body.verifiableCredential;

      expect(verifiesPerJcsSpec(issued)).toBe(true);
      expect(verifiesPerJcsSpec({ ...issued, name: 'Changed' })).toBe(false);
    });

    it('keeps an id and an issuer object naming the DID, and takes options.credentialId', async () => {
      const withId = await issue(service, 'demo', alumniCredential({ id: 'urn:example:1' }));
      expect(withId.body.verifiableCredential.id).toBe('urn:example:1');

      const issuerObject = { id: demoDid, name: 'Demo University' };
      const withObject = await issue(service, 'demo', alumniCredential({ issuer: issuerObject }), {
        credentialId: 'urn:example:2',
        type: 'DataIntegrityProof',
      });
      expect(withObject.status).toBe(201);
      expect(withObject.body.verifiableCredential).toMatchObject({
        id: 'urn:example:2',
        issuer: issuerObject,
      });
      const verified = await verifyCredential(
        service,
        'demo',
        withObject.body.verifiableCredential,
      );
      expect(verified.status).toBe(200);
    });

    it('issues a VC Data Model 1.1 credential, with issuanceDate set, and it verifies', async () => {
      const credential = {
        '@context': [
          'https://www.w3.org/2018/credentials/v1',
          'https://www.w3.org/2018/credentials/examples/v1',
        ],
        type: ['VerifiableCredential', 'UniversityDegreeCredential'],
        credentialSubject: {
          id: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
          degree: { type: 'BachelorDegree', name: 'Bachelor of Science and Arts' },
        },
      };
      const response = await issue(service, 'demo', credential);

      expect(response.status).toBe(201);
      expect(response.body.verifiableCredential.issuanceDate).toEqual(expect.any(String));
      const verified = await verifyCredential(service, 'demo', response.body.verifiableCredential);
      expect(verified.status).toBe(200);
    });

    it.each<[string, Json, Json | undefined, string, string[]]>([
      [
        'a proof already present',
        alumniCredential({ proof: { type: 'X' } }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.proof'],
      ],
      [
        'a BitstringStatusListEntry that names no list',
        alumniCredential({ credentialStatus: { type: 'BitstringStatusListEntry' } }),
        undefined,
        'CREDENTIAL_INVALID',
        [
          'credential.credentialStatus.statusPurpose',
          'credential.credentialStatus.statusListIndex',
          'credential.credentialStatus.statusListCredential',
        ],
      ],
      [
        'another issuer',
        alumniCredential({ issuer: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2' }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.issuer'],
      ],
      [
        'an issuer that is a number',
        alumniCredential({ issuer: 7 }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.issuer'],
      ],
      [
        'no credentialSubject',
        alumniCredential({ credentialSubject: undefined }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.credentialSubject'],
      ],
      [
        'no VerifiableCredential type',
        alumniCredential({ type: ['AlumniCredential'] }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.type'],
      ],
      [
        'no credentials context',
        { ...alumniCredential(), '@context': [examplesV2] },
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.@context'],
      ],
      [
        'a bad validFrom',
        alumniCredential({ validFrom: 'yesterday' }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.validFrom'],
      ],
      [
        'an unknown context',
        {
          ...alumniCredential(),
          '@context': ['https://www.w3.org/ns/credentials/v2', 'https://evil.example/context'],
        },
        undefined,
        'JSONLD_CONTEXT_UNKNOWN',
        ['@context'],
      ],
      [
        'a term no context defines',
        { ...alumniCredential(), '@context': ['https://www.w3.org/ns/credentials/v2'] },
        undefined,
        'CREDENTIAL_INVALID',
        ['credential'],
      ],
      [
        'an unknown cryptosuite',
        alumniCredential(),
        { cryptosuite: 'ecdsa-rdfc-2019' },
        'VALIDATION_FAILED',
        ['options.cryptosuite'],
      ],
      [
        'an id differing from options.credentialId',
        alumniCredential({ id: 'urn:a:1' }),
        { credentialId: 'urn:a:2' },
        'CREDENTIAL_INVALID',
        ['options.credentialId'],
      ],
      [
        'an issuer with a control character',
        alumniCredential({ issuer: 'did:key:z6Mk\u0000x' }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.issuer'],
      ],
      [
        'an id with a control character',
        alumniCredential({ id: 'urn:example:a\u0000b' }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.id'],
      ],
      [
        'a type with a control character',
        alumniCredential({ type: ['VerifiableCredential', 'Alumni\u0000Credential'] }),
        undefined,
        'CREDENTIAL_INVALID',
        ['credential.type'],
      ],
      [
        'an options.credentialId with a control character',
        alumniCredential(),
        { credentialId: 'urn:example:a\u0000b' },
        'VALIDATION_FAILED',
        ['options.credentialId'],
      ],
      [
        'another issuer, signing with eddsa-jcs-2022',
        alumniCredential({ issuer: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2' }),
        { cryptosuite: 'eddsa-jcs-2022' },
        'CREDENTIAL_INVALID',
        ['credential.issuer'],
      ],
      [
        'a term no context defines, signing with eddsa-jcs-2022',
        { ...alumniCredential(), '@context': ['https://www.w3.org/ns/credentials/v2'] },
        { cryptosuite: 'eddsa-jcs-2022' },
        'CREDENTIAL_INVALID',
        ['credential'],
      ],
    ])(
      'refuses %s with 400, naming it, and writes nothing',
      async (_case, credential, options, code, fields) => {
        const before = await writtenFor('demo');
        const response = await issue(service, 'demo', credential, options);

        const problem = expectProblem(response, 400, code, issuePath);
        expectFieldErrors(problem, fields);
        expect(await writtenFor('demo')).toEqual(before);
      },
    );

    it('names the unknown context', async () => {
      const credential = {
        ...alumniCredential(),
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://evil.example/context'],
      };
      const response = await issue(service, 'demo', credential);
      expect(expectProblem(response, 400, 'JSONLD_CONTEXT_UNKNOWN', issuePath).detail).toContain(
        'https://evil.example/context',
      );
    });

    it('issues and verifies through the typed client', async () => {
      const client = service.client('demo');
      const credential = await client.issueCredential('demo', { credential: alumniCredential() });
      const verification = await client.verifyCredential('demo', credential);
      expect(verification.verified).toBe(true);
      await expect(
        client.verifyCredential('demo', { ...credential, name: 'Changed' }),
      ).rejects.toMatchObject({ status: 422 });
    });

    it('issues only for a tenant the caller may act for', async () => {
      const forOther = await issue(service, 'other', alumniCredential(), undefined, 'demo');
      expectProblem(forOther, 403, 'FORBIDDEN', issuePath);

      const forDemo = await issue(service, 'demo', alumniCredential(), undefined, 'demo');
      expect(forDemo.status).toBe(201);
    });

    it('answers 404 for a tenant that does not exist', async () => {
      const response = await issue(service, 'ghost', alumniCredential());
      expectProblem(response, 404, 'TENANT_NOT_FOUND', issuePath);
      const withoutEntry = await issue(service, 'ghost', alumniCredential(), {
        credentialStatus: [],
      });
      expectProblem(withoutEntry, 404, 'TENANT_NOT_FOUND', issuePath);
    });

    it('takes no record for another issuer, and names it before a credential id already used', async () => {
      const id = 'urn:example:issued-once';
      expect((await issue(service, 'demo', alumniCredential({ id }))).status).toBe(201);
      // Counted when the issue statement answers its record's row, even if the transaction rolls back.
      const counter = service.app.get(Metrics, { strict: false }).webhookEvents;
      const issuedEvents = async () =>
        (await counter.get()).values.find((value) => value.labels.type === 'credential.issued')
          ?.value;
      const before = await issuedEvents();
      const other = 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';
      for (const cryptosuite of ['eddsa-rdfc-2022', 'eddsa-jcs-2022']) {
        for (const credentialStatus of [undefined, []]) {
          for (const given of [{ issuer: other }, { id, issuer: other }]) {
            const response = await issue(service, 'demo', alumniCredential(given), {
              cryptosuite,
              ...(credentialStatus && { credentialStatus }),
            });
            expectFieldErrors(expectProblem(response, 400, 'CREDENTIAL_INVALID', issuePath), [
              'credential.issuer',
            ]);
          }
        }
      }
      expect(await issuedEvents()).toBe(before);
      const again = await issue(service, 'demo', alumniCredential({ id }));
      expectProblem(again, 409, 'CREDENTIAL_ALREADY_EXISTS', issuePath);
    });

    it('answers 404 for a deleted tenant and writes nothing for it', async () => {
      await service.client().createTenant({ id: 'gone', label: 'Gone' });
      expect((await issue(service, 'gone', alumniCredential())).status).toBe(201);
      await service.client().deleteTenant('gone');
      const before = await writtenFor('gone');
      for (const options of [undefined, { credentialStatus: [] }]) {
        const response = await issue(service, 'gone', alumniCredential(), options);
        expectProblem(response, 404, 'TENANT_NOT_FOUND', issuePath);
      }
      expect(await writtenFor('gone')).toEqual(before);
    });
  });

  describe('POST /credentials/verify', () => {
    async function issued(extra: Json = {}, cryptosuite = 'eddsa-rdfc-2022'): Promise<Json> {
      const response = await issue(service, 'demo', alumniCredential(extra), { cryptosuite });
      expect(response.status).toBe(201);
      return response.body.verifiableCredential;
    }

    function failedChecks(body: Json): string[] {
      return (body.problemDetails as { check: string }[]).map((problem) => problem.check);
    }

    it.each(['eddsa-rdfc-2022', 'eddsa-jcs-2022'])(
      'refuses a %s credential changed after signing, naming the proof check',
      async (cryptosuite) => {
        const credential = await issued({}, cryptosuite);
        const response = await verifyCredential(service, 'demo', {
          ...credential,
          credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'Another School' },
        });

        expectProblem(response, 422, 'CREDENTIAL_NOT_VERIFIED', verifyPath);
        expect(response.body.verified).toBe(false);
        expect(failedChecks(response.body)).toEqual(['proof']);
      },
    );

    it('refuses an expired and a not yet valid credential, naming the validity check', async () => {
      const expired = await issued({ validUntil: '2020-01-01T00:00:00Z' });
      const early = await issued({ validFrom: '2999-01-01T00:00:00Z' });

      for (const credential of [expired, early]) {
        const response = await verifyCredential(service, 'demo', credential);
        expectProblem(response, 422, 'CREDENTIAL_NOT_VERIFIED', verifyPath);
        expect(failedChecks(response.body)).toEqual(['validity']);
      }
    });

    it('refuses a proof made by a key the issuer does not list, naming the issuer check', async () => {
      const credential = await issued();
      const otherDid = (await service.client().getTenant('other')).did;
      const response = await verifyCredential(service, 'demo', { ...credential, issuer: otherDid });

      expect(response.status).toBe(422);
      expect(failedChecks(response.body)).toEqual(expect.arrayContaining(['issuer']));
    });

    it('accepts the proofs of the published vectors; their https issuer is not a DID it resolves', async () => {
      const vectors = join(process.cwd(), 'test/vectors/vc-di-eddsa/TestVectors');
      for (const file of [
        'eddsa-rdfc-2022/signedDataInt.json',
        'eddsa-jcs-2022/signedJCS.json',
        'Ed25519Signature2020/signedEdSig.json',
        'proof-set-chain/signedProofChain2.json',
      ]) {
        const vector = JSON.parse(readFileSync(join(vectors, file), 'utf8')) as Json;
        const response = await verifyCredential(service, 'demo', vector);
        expect({ file, status: response.status, failed: failedChecks(response.body) }).toEqual({
          file,
          status: 422,
          failed: ['issuer'],
        });
      }
    });

    it.each<[string, unknown]>([
      ['no proof', alumniCredential({ issuer: 'did:example:1' })],
      ['no credentialSubject', { ...alumniCredential(), credentialSubject: undefined, proof: {} }],
    ])('refuses a credential with %s with 400', async (_case, credential) => {
      const response = await verifyCredential(service, 'demo', credential);
      expectProblem(response, 400, 'CREDENTIAL_INVALID', verifyPath);
    });
  });
});
