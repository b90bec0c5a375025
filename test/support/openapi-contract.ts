import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type ApiResponse } from './test-service.js';

const addFormats = addFormatsModule.default;

/** The parts of an OpenAPI 3.0 document the contract checks read. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  [key: string]: unknown;
}

export type Schema = Record<string, unknown>;

export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { description?: string; schema?: Schema }>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: unknown;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}

export interface LocatedOperation {
  method: string;
  path: string;
  operation: Operation;
}

export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function operationsOf(document: OpenApiDocument): LocatedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.includes(method))
      .map(([method, operation]) => ({ method, path, operation: operation as Operation })),
  );
}

const schemaId = 'https://agent-service.test/openapi-components';

/**
 * OpenAPI 3.0 schemas as JSON Schema for Ajv: component references point into one registered schema, and
 * objects refuse properties the document does not name, so that an answer carrying an undocumented field
 * fails the contract as surely as one missing a required field.
 */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      converted.$ref = value.replace('#/components/schemas/', `${schemaId}#/definitions/`);
    } else if (key === 'properties' || key === 'definitions') {
      converted[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, property]) => [
          name,
          toJsonSchema(property),
        ]),
      );
    } else if (key === 'example') {
      // An annotation; the document's examples are checked against their schemas separately.
    } else {
      converted[key] = toJsonSchema(value);
    }
  }
  if (converted.type === 'object' && converted.properties !== undefined) {
    converted.additionalProperties ??= false;
  }
  return converted;
}

/** What the document promises for one operation and status, checked against a real answer. */
export class OpenApiContract {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  private readonly byOperationId = new Map<string, LocatedOperation>();
  private readonly validators = new Map<string, ValidateFunction>();
  /** `operationId status` of every answer checked, to tell which documented answers were seen. */
  readonly seen = new Set<string>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(
      toJsonSchema({ $id: schemaId, definitions: document.components.schemas }) as Schema,
    );
    for (const located of operationsOf(document)) {
      if (located.operation.operationId !== undefined) {
        this.byOperationId.set(located.operation.operationId, located);
      }
    }
  }

  operation(operationId: string): LocatedOperation {
    const located = this.byOperationId.get(operationId);
    if (located === undefined) throw new Error(`The document has no operation ${operationId}`);
    return located;
  }

  /** Ajv's verdict on a value against a schema of the document (a $ref or an inline schema). */
  validate(schema: Schema, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validator = this.validators.get(key);
    if (validator === undefined) {
      validator = this.ajv.compile(toJsonSchema(schema) as Schema);
      this.validators.set(key, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map(
      (error) =>
        `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  /**
   * Everything wrong with `response` as an answer of the operation: a status the operation does not
   * document, a content type it does not document for that status, a body its schema refuses, a
   * documented header missing.
   */
  violations(operationId: string, response: ApiResponse): string[] {
    const { operation } = this.operation(operationId);
    const status = String(response.status);
    this.seen.add(`${operationId} ${status}`);
    const documented = operation.responses[status];
    if (documented === undefined) {
      return [
        `${operationId} answered ${status}, which it does not document (documented: ${Object.keys(operation.responses).join(', ')}); body: ${response.text.slice(0, 300)}`,
      ];
    }
    const problems: string[] = [];
    for (const header of Object.keys(documented.headers ?? {})) {
      if (!response.headers.has(header)) {
        problems.push(`${operationId} ${status}: documented header ${header} is missing`);
      }
    }
    const contentType = response.headers.get('content-type');
    if (documented.content === undefined) {
      if (response.text !== '') {
        problems.push(`${operationId} ${status}: documents no body but got ${contentType}`);
      }
      return problems;
    }
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    const media = mediaType === undefined ? undefined : documented.content[mediaType];
    if (media === undefined) {
      return [
        ...problems,
        `${operationId} ${status}: content type ${contentType} is not documented (documented: ${Object.keys(documented.content).join(', ')})`,
      ];
    }
    // An image (an offer's QR code) is a documented string of bytes: its type is what can be checked.
    if (mediaType!.startsWith('image/')) {
      const schema = media.schema as { type?: string } | undefined;
      if (schema?.type !== 'string')
        problems.push(`${operationId} ${status}: ${mediaType} is not a string`);
      return problems;
    }
    // A body that is not JSON (a JWT, say) is checked as the string its schema must say it is.
    if (!/[/+]json$/.test(mediaType!)) {
      const type = (media.schema as { type?: string } | undefined)?.type;
      if (type === 'string' && response.text !== '') return problems;
      return [...problems, `${operationId} ${status}: ${mediaType} is not a documented string`];
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...problems, `${operationId} ${status}: the body is not JSON: ${response.text}`];
    }
    if (media.schema === undefined) return [...problems, `${operationId} ${status}: no schema`];
    return [
      ...problems,
      ...this.validate(media.schema, body).map(
        (message) => `${operationId} ${status} ${mediaType}: ${message}`,
      ),
    ];
  }

  /** The documented answers (`operationId status`) that no checked response has shown. */
  unseen(except: (status: string) => boolean = () => false): string[] {
    return operationsOf(this.document).flatMap(({ operation }) =>
      Object.keys(operation.responses)
        .filter((status) => !except(status))
        .map((status) => `${operation.operationId} ${status}`)
        .filter((key) => !this.seen.has(key)),
    );
  }
}
