import type { Case, ContractContext } from './context.js';

/** The tenant's DID and DID document. */
export function didCases(context: ContractContext): Case[] {
  const { send, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  return [
    // getDid
    {
      operationId: 'getDid',
      status: 200,
      when: 'an admin names a tenant',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('acme')),
    },
    {
      operationId: 'getDid',
      status: 200,
      when: 'an agent-user names its own tenant',
      send: () => send('/ctrl/api/v1.0/did', { ...asDemo, ...tenantHeader('demo') }),
    },
    {
      operationId: 'getDid',
      status: 400,
      when: 'the tenant header is missing',
      send: () => send('/ctrl/api/v1.0/did'),
    },
    {
      operationId: 'getDid',
      status: 400,
      when: 'the tenant header is malformed',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('a,b')),
    },
    {
      operationId: 'getDid',
      status: 401,
      when: 'no token is sent',
      send: () => send('/ctrl/api/v1.0/did', { ...anonymous, ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDid',
      status: 403,
      when: 'an agent-user names another tenant',
      send: () => send('/ctrl/api/v1.0/did', { ...asDemo, ...tenantHeader('other') }),
    },
    {
      operationId: 'getDid',
      status: 404,
      when: 'an admin names an unknown tenant',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('nobody')),
    },
    // getDidDocument
    {
      operationId: 'getDidDocument',
      status: 200,
      when: 'an admin names a tenant',
      send: () => send('/ctrl/api/v1.0/did/document', tenantHeader('acme')),
    },
    {
      operationId: 'getDidDocument',
      status: 400,
      when: 'the tenant header is missing',
      send: () => send('/ctrl/api/v1.0/did/document'),
    },
    {
      operationId: 'getDidDocument',
      status: 401,
      when: 'the token is not valid',
      send: () => send('/ctrl/api/v1.0/did/document', { ...badToken, ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDidDocument',
      status: 403,
      when: 'the token carries neither role',
      send: () =>
        send('/ctrl/api/v1.0/did/document', { ...withoutRole(), ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDidDocument',
      status: 404,
      when: 'an admin names an unknown tenant',
      send: () => send('/ctrl/api/v1.0/did/document', tenantHeader('nobody')),
    },
  ];
}
