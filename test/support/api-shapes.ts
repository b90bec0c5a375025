/** Paths and answer shapes of the API, written out from api.md so the tests do not trust the code. */
export const tenantsPath = '/ctrl/api/v1.0/tenants';
export const createPath = `${tenantsPath}/create`;
export const tenantPath = (id: string) => `${tenantsPath}/${encodeURIComponent(id)}`;
export const updatePath = (id: string) => `${tenantPath(id)}/update`;
export const deletePath = (id: string) => `${tenantPath(id)}/delete`;
export const didPath = '/ctrl/api/v1.0/did';
export const didDocumentPath = '/ctrl/api/v1.0/did/document';

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
