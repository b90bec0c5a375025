import { apiOperations as documentedOperations } from './support/api-shapes.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  OpenApiContract,
  operationsOf,
  type MediaType,
  type OpenApiDocument,
  type Schema,
} from './support/openapi-contract.js';
import { issue } from './support/credentials-harness.js';
import { call, startTestService, type TestService } from './support/test-service.js';

/**
 * The OpenAPI document the service serves: it passes Redocly's recommended
 * lint rules, every operation is complete (operationId, summary, parameters, body, every answer with its
 * schema and examples, its own security), and the committed client types are generated from it.
 */

const execFileAsync = promisify(execFile);
const root = join(import.meta.dirname, '..');

function mediaExamples(media: MediaType): unknown[] {
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((example) => example.value),
  ];
}

describe('The OpenAPI document', () => {
  let service: TestService;
  let document: OpenApiDocument;
  let contract: OpenApiContract;
  let directory: string;
  let documentFile: string;

  beforeAll(async () => {
    service = await startTestService();
    const response = await call<OpenApiDocument>(service.url, '/ctrl/v3/api-docs');
    expect(response.status).toBe(200);
    document = response.body;
    contract = new OpenApiContract(document);
    directory = mkdtempSync(join(tmpdir(), 'agent-openapi-'));
    documentFile = join(directory, 'openapi.json');
    writeFileSync(documentFile, JSON.stringify(document, null, 2));
  });

  afterAll(async () => {
    await service.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const operations = () => operationsOf(document);
  const apiOperations = () => operations().filter(({ path }) => path.startsWith('/ctrl/api/'));

  it('passes the Redocly lint rules (recommended, see redocly.yaml) without an error or warning', async () => {
    const { stdout } = await execFileAsync(
      process.execPath,
      [
        join(root, 'node_modules/@redocly/cli/bin/cli.js'),
        'lint',
        documentFile,
        '--config',
        join(root, 'redocly.yaml'),
        '--format=json',
      ],
      {
        cwd: directory,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(
      report.problems.map(
        (problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
      ),
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('documents every API route of the service, and the health probes', () => {
    expect(operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual(
      expect.arrayContaining([
        ...documentedOperations,
        'GET /ctrl/health/live',
        'GET /ctrl/health/ready',
      ]),
    );
  });

  it('gives every operation a unique operationId, a summary and a described tag', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Map(
      ((document.tags ?? []) as { name: string; description?: string }[]).map((tag) => [
        tag.name,
        tag.description,
      ]),
    );
    for (const { operation } of operations()) {
      expect(operation.summary?.trim()).toBeTruthy();
      expect(operation.tags?.length).toBe(1);
      expect(tags.get(operation.tags![0])).toBeTruthy();
    }
  });

  it('gives every operation its own security: a token on admin routes, a token and the tenant header on tenant-scoped ones, none on the probes', () => {
    const schemes = document.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['bearer', 'oauth2', 'tenant']);
    expect(schemes.tenant).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-tenant-id' });
    for (const { path, operation } of operations()) {
      const requirements = operation.security;
      expect(Array.isArray(requirements)).toBe(true);
      if (!path.startsWith('/ctrl/api/') && !path.endsWith('/publish')) {
        expect(requirements).toEqual([]);
        continue;
      }
      const tenantScoped =
        /^\/ctrl\/api\/v1\.0\/(did|credentials|presentations|webhooks|trusted-issuers|trust-anchors|wallet-providers|certificates|oid4vci|oid4vp)(\/|$)/.test(
          path,
        );
      expect(requirements!.length).toBeGreaterThan(0);
      for (const requirement of requirements!) {
        const names = Object.keys(requirement);
        expect(names.some((name) => name === 'oauth2' || name === 'bearer')).toBe(true);
        expect(names.includes('tenant')).toBe(tenantScoped);
      }
    }
  });

  it('declares every parameter with a description, a schema and an example, path ids included', () => {
    for (const { path, operation } of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const parameters = operation.parameters ?? [];
      expect(parameters.filter((parameter) => parameter.in === 'path').map((p) => p.name)).toEqual(
        inPath,
      );
      for (const parameter of parameters) {
        expect(parameter.description?.trim()).toBeTruthy();
        expect(parameter.schema).toBeDefined();
        if (parameter.in === 'path') expect(parameter.required).toBe(true);
        const example = parameter.example ?? parameter.schema?.example;
        expect({ where: `${operation.operationId} ${parameter.name}`, example }).toEqual({
          where: `${operation.operationId} ${parameter.name}`,
          example: expect.anything(),
        });
        expect(contract.validate(parameter.schema!, example)).toEqual([]);
      }
    }
    const list = contract.operation('listTenants').operation.parameters!;
    expect(list.map((parameter) => parameter.name).sort()).toEqual(['page', 'q', 'size', 'sort']);
  });

  it('documents a JSON request body, with examples, where an operation takes one', () => {
    const withBody = operations()
      .filter(({ operation }) => operation.requestBody !== undefined)
      .map(({ operation }) => operation.operationId);
    expect(withBody.sort()).toEqual(
      [
        'createTenant',
        'createTrustedIssuer',
        'createTrustAnchor',
        'createWalletProvider',
        'setWalletAttestationPolicy',
        'createCertificateSigningRequest',
        'importCertificate',
        'issueCertificate',
        'createCredentialConfiguration',
        'updateCredentialConfiguration',
        'createOffer',
        'createPresentationRequest',
        'submitDcApiResponse',
        'createWebhook',
        'createAdminWebhook',
        'issueCredential',
        'setLoginProvider',
        'updateTenant',
        'updateWebhook',
        'updateAdminWebhook',
        'updateCredentialStatus',
        'verifyCredential',
        'verifyPresentation',
      ].sort(),
    );
    for (const { operation } of operations()) {
      if (operation.requestBody === undefined) continue;
      expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
      const media = operation.requestBody.content['application/json'];
      expect(media.schema).toBeDefined();
      expect(mediaExamples(media).length).toBeGreaterThan(0);
    }
  });

  it('documents every answer with a description, and every body with a schema and an example', () => {
    for (const { operation } of operations()) {
      const successes = Object.keys(operation.responses).filter((status) => /^2/.test(status));
      expect(successes).toHaveLength(1);
      for (const [status, response] of Object.entries(operation.responses)) {
        const where = `${operation.operationId} ${status}`;
        expect({ where, description: response.description?.trim() }).toEqual({
          where,
          description: expect.any(String),
        });
        if (status === '204' || status === '304') {
          expect(response.content).toBeUndefined();
          continue;
        }
        // One media type, or JSON beside its signed form (signed issuer metadata, OpenID4VCI 1.0 §12.2.3).
        const types = Object.keys(response.content ?? {}).sort();
        expect({ where, types }).toEqual({
          where,
          types:
            types.length === 2 ? ['application/json', 'application/jwt'] : [expect.any(String)],
        });
        for (const media of Object.values(response.content!)) {
          expect(media.schema).toBeDefined();
          expect({ where, examples: mediaExamples(media).length > 0 }).toEqual({
            where,
            examples: true,
          });
        }
      }
    }
  });

  it('documents the problem answers of every API operation: 400 where it takes input, 401 with its challenge, 403, 404 where a tenant is named, 500 and 503 with Retry-After', () => {
    for (const { path, operation } of apiOperations()) {
      const statuses = Object.keys(operation.responses);
      expect(statuses).toEqual(expect.arrayContaining(['401', '403', '500', '503']));
      // Only an id that is a UUID, which names nothing (404) when it is not one, is no input to refuse.
      const takesInput =
        operation.requestBody !== undefined ||
        (operation.security ?? []).some((requirement) => 'tenant' in requirement) ||
        (operation.parameters ?? []).some(
          (parameter) => parameter.in !== 'path' || parameter.schema?.format !== 'uuid',
        );
      expect({ path, takesInput, has400: statuses.includes('400') }).toEqual({
        path,
        takesInput,
        has400: takesInput,
      });
      if (path.includes('{id}') || path.startsWith('/ctrl/api/v1.0/did')) {
        expect(statuses).toContain('404');
      }
      expect(operation.responses['401'].headers).toHaveProperty('WWW-Authenticate');
      expect(operation.responses['503'].headers).toHaveProperty('Retry-After');
    }
    expect(Object.keys(contract.operation('createTenant').operation.responses)).toEqual(
      expect.arrayContaining(['409', '413', '415']),
    );
  });

  it('answers every error as problem details, with one example per error code of that status', () => {
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^[45]/.test(status)) continue;
        expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
        const media = response.content!['application/problem+json'];
        expect(media.schema).toEqual({ $ref: '#/components/schemas/ProblemDto' });
        for (const [code, example] of Object.entries(media.examples ?? {})) {
          expect(example.value).toMatchObject({ status: Number(status), code });
        }
      }
    }
  });

  it('lists the error codes of an answer one per line, each with when it happens', () => {
    for (const { operation } of apiOperations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^[45]/.test(status)) continue;
        const codes = Object.keys(response.content?.['application/problem+json']?.examples ?? {});
        // A second decorator's codes (@Idempotent) follow after the blank line @nestjs/swagger puts between.
        expect(response.description.split('\n').filter((line) => line !== '')).toEqual(
          codes.map((code) => expect.stringMatching(new RegExp(`^- \`${code}\`: \\S`)) as unknown),
        );
      }
    }
  });

  it('shows in the example of an issued credential every field a live one has, credentialStatus included', async () => {
    expect(
      (
        await service.request('/ctrl/api/v1.0/tenants/create', {
          method: 'POST',
          query: { id: 'example-issuer', label: 'Example issuer' },
        })
      ).status,
    ).toBe(201);
    // The documented request, as Try it out sends it, and the documented answer to it.
    const { operation } = contract.operation('issueCredential');
    const [request] = mediaExamples(operation.requestBody!.content['application/json']) as {
      credential: Record<string, unknown>;
    }[];
    const live = await issue(service, 'example-issuer', request.credential);
    expect(live.status).toBe(201);
    const media = operation.responses['201'].content!['application/json'];
    const [documented] = mediaExamples(media) as {
      verifiableCredential: Record<string, unknown>;
    }[];
    expect(Object.keys(documented.verifiableCredential).sort()).toEqual(
      Object.keys(live.body.verifiableCredential).sort(),
    );
    expect(Object.keys(documented.verifiableCredential.credentialStatus as object).sort()).toEqual(
      Object.keys(live.body.verifiableCredential.credentialStatus as object).sort(),
    );
  });

  it('has examples that its own schemas accept', () => {
    const failures: string[] = [];
    const check = (where: string, schema: Schema | undefined, media: MediaType) => {
      if (schema === undefined) return;
      for (const example of mediaExamples(media)) {
        failures.push(...contract.validate(schema, example).map((error) => `${where}: ${error}`));
      }
    };
    for (const { operation } of operations()) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        check(`${operation.operationId} request ${type}`, media.schema, media);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          check(`${operation.operationId} ${status} ${type}`, media.schema, media);
        }
      }
    }
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      for (const [property, propertySchema] of Object.entries(properties)) {
        if (propertySchema.example === undefined) continue;
        failures.push(
          ...contract
            .validate(propertySchema, propertySchema.example)
            .map((error) => `${name}.${property} example: ${error}`),
        );
      }
    }
    expect(failures).toEqual([]);
  });

  it('is the document the committed client types were generated from (npm run client:generate)', async () => {
    const generated = join(directory, 'schema.ts');
    await execFileAsync(
      process.execPath,
      [join(root, 'scripts/generate-client.mjs'), '--document', documentFile, '--out', generated],
      { cwd: root },
    );
    const committed = readFileSync(join(root, 'packages/client/src/generated/schema.ts'), 'utf8');
    const current = readFileSync(generated, 'utf8');
    if (current !== committed) {
      throw new Error(
        'packages/client/src/generated/schema.ts is behind the OpenAPI document the service serves: run `npm run client:generate` and commit the result.',
      );
    }
  }, 120_000);
});
