import type { ApiRequest, ApiResponse, TestService } from '../support/test-service.js';

/** One call of an operation, and the documented status its real answer must have. */
export interface Case {
  operationId: string;
  status: number;
  when: string;
  send: () => Promise<ApiResponse>;
}

export const tenants = '/ctrl/api/v1.0/tenants';
export const tenant = (id: string) => `${tenants}/${id}`;

const asDemo = { as: 'demo' } as const;
const anonymous = { as: 'anonymous' } as const;
const badToken = { token: 'not.a.token' } as const;
const tenantHeader = (id: string) => ({ headers: { 'x-tenant-id': id } });
const bigBody = () => JSON.stringify({ id: 'big', label: 'x'.repeat(110 * 1024) });

/**
 * What the feature case lists share. Jest collects the lists before the service starts, so a case
 * reads the service (`service`, `send`, `post`, `withoutRole`) only when it is sent.
 */
export interface ContractContext {
  readonly service: TestService;
  readonly send: (path: string, request?: ApiRequest) => Promise<ApiResponse>;
  readonly post: (path: string, request?: ApiRequest) => Promise<ApiResponse>;
  readonly asDemo: typeof asDemo;
  readonly anonymous: typeof anonymous;
  readonly badToken: typeof badToken;
  /** A well-signed access token of a caller with neither agent-admin nor agent-user. */
  readonly withoutRole: () => { token: string };
  readonly tenantHeader: typeof tenantHeader;
  readonly bigBody: typeof bigBody;
}

/** What the runner sets in its beforeAll, before any case is sent. */
export interface ContractFixtures {
  service?: TestService;
  noRoleToken?: string;
}

/** The shared context, reading the fixtures the runner fills in once the service runs. */
export function contractContext(fixtures: ContractFixtures): ContractContext {
  const started = () => {
    if (!fixtures.service) throw new Error('A contract case was sent before the service started');
    return fixtures.service;
  };
  return {
    get service() {
      return started();
    },
    send: (path, request = {}) => started().request(path, request),
    post: (path, request = {}) => started().request(path, { method: 'POST', ...request }),
    asDemo,
    anonymous,
    badToken,
    withoutRole: () => {
      if (fixtures.noRoleToken === undefined)
        throw new Error('The role-less token is not made yet');
      return { token: fixtures.noRoleToken };
    },
    tenantHeader,
    bigBody,
  };
}

/** The credential the contract cases issue: the smallest a tenant can sign. */
export const credential = {
  '@context': [
    'https://www.w3.org/ns/credentials/v2',
    'https://www.w3.org/ns/credentials/examples/v2',
  ],
  type: ['VerifiableCredential'],
  credentialSubject: { id: 'did:example:1', alumniOf: 'The School of Examples' },
};
