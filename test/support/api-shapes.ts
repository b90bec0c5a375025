/** Paths and answer shapes of the API, written out from api.md so the tests do not trust the code. */
export const tenantsPath = '/ctrl/api/v1.0/tenants';
export const createPath = `${tenantsPath}/create`;
export const tenantPath = (id: string) => `${tenantsPath}/${encodeURIComponent(id)}`;
export const updatePath = (id: string) => `${tenantPath(id)}/update`;
export const deletePath = (id: string) => `${tenantPath(id)}/delete`;
export const didPath = '/ctrl/api/v1.0/did';
export const didDocumentPath = '/ctrl/api/v1.0/did/document';

/** Every API operation, as `METHOD /path` with OpenAPI's `{param}` templates. */
export const apiOperations = [
  'POST /ctrl/api/v1.0/tenants/create',
  'POST /ctrl/api/v1.0/tenants/{id}/update',
  'POST /ctrl/api/v1.0/tenants/{id}/delete',
  'GET /ctrl/api/v1.0/tenants',
  'GET /ctrl/api/v1.0/tenants/{id}',
  'GET /ctrl/api/v1.0/did',
  'GET /ctrl/api/v1.0/did/document',
];

/** An Ed25519 did:key (multicodec 0xed01, base58btc): always starts with z6Mk. */
export const ed25519DidKey = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/;
/** A timestamp as the API writes it: ISO 8601 in UTC, milliseconds. */
export const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface Tenant {
  id: string;
  label: string;
  imageUrl: string | null;
  did: string;
  createdAt: string;
  updatedAt: string;
}

export interface TenantPage {
  content: Tenant[];
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  errors?: { field: string; message: string }[];
}
