import { tenant, tenants, type Case, type ContractContext } from './context.js';

/** The tenant routes: create, update, delete, list and read, each on its success and error paths. */
export function tenantCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, bigBody } = context;
  return [
    // createTenant
    {
      operationId: 'createTenant',
      status: 201,
      when: 'the fields are query parameters',
      send: () => post(`${tenants}/create`, { query: { id: 'by-query', label: 'By query' } }),
    },
    {
      operationId: 'createTenant',
      status: 201,
      when: 'the fields are a JSON body with an image',
      send: () =>
        post(`${tenants}/create`, {
          body: { id: 'by-body', label: 'By body', imageUrl: 'https://by-body.example/logo.png' },
        }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'the id is invalid',
      send: () => post(`${tenants}/create`, { query: { id: '-bad', label: 'Bad' } }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'the body is not JSON',
      send: () => post(`${tenants}/create`, { body: '{"id":' }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'query and body disagree',
      send: () =>
        post(`${tenants}/create`, { query: { label: 'One' }, body: { id: 'two', label: 'Two' } }),
    },
    {
      operationId: 'createTenant',
      status: 401,
      when: 'no token is sent',
      send: () => post(`${tenants}/create`, { ...anonymous, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 401,
      when: 'the token is not valid',
      send: () => post(`${tenants}/create`, { ...badToken, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 403,
      when: 'the caller is an agent-user',
      send: () => post(`${tenants}/create`, { ...asDemo, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 409,
      when: 'the id is taken',
      send: () => post(`${tenants}/create`, { query: { id: 'acme', label: 'Again' } }),
    },
    {
      operationId: 'createTenant',
      status: 413,
      when: 'the body is over 100 kB',
      send: () => post(`${tenants}/create`, { body: bigBody() }),
    },
    {
      operationId: 'createTenant',
      status: 415,
      when: 'the body is not JSON by its content type',
      send: () =>
        post(`${tenants}/create`, {
          headers: { 'content-type': 'text/plain' },
          body: 'id=plain&label=Plain',
        }),
    },
    // updateTenant
    {
      operationId: 'updateTenant',
      status: 200,
      when: 'the label is a query parameter',
      send: () => post(`${tenant('to-update')}/update`, { query: { label: 'Updated' } }),
    },
    {
      operationId: 'updateTenant',
      status: 200,
      when: 'the body removes the image',
      send: () => post(`${tenant('to-update')}/update`, { body: { imageUrl: null } }),
    },
    {
      operationId: 'updateTenant',
      status: 400,
      when: 'there is nothing to change',
      send: () => post(`${tenant('to-update')}/update`, { body: {} }),
    },
    {
      operationId: 'updateTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => post(`${tenant('-bad')}/update`, { query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 401,
      when: 'no token is sent',
      send: () => post(`${tenant('to-update')}/update`, { ...anonymous, query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 403,
      when: 'the caller is an agent-user, even for its own tenant',
      send: () => post(`${tenant('demo')}/update`, { ...asDemo, query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => post(`${tenant('nobody')}/update`, { query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 413,
      when: 'the body is over 100 kB',
      send: () => post(`${tenant('to-update')}/update`, { body: bigBody() }),
    },
    {
      operationId: 'updateTenant',
      status: 415,
      when: 'the body is not JSON by its content type',
      send: () =>
        post(`${tenant('to-update')}/update`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'label=Form',
        }),
    },
    // deleteTenant
    {
      operationId: 'deleteTenant',
      status: 204,
      when: 'the tenant exists',
      send: () => post(`${tenant('to-delete')}/delete`),
    },
    {
      operationId: 'deleteTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => post(`${tenant('a%20b')}/delete`),
    },
    {
      operationId: 'deleteTenant',
      status: 401,
      when: 'the token is not valid',
      send: () => post(`${tenant('acme')}/delete`, badToken),
    },
    {
      operationId: 'deleteTenant',
      status: 403,
      when: 'the caller is an agent-user',
      send: () => post(`${tenant('demo')}/delete`, asDemo),
    },
    {
      operationId: 'deleteTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => post(`${tenant('nobody')}/delete`),
    },
    // listTenants
    {
      operationId: 'listTenants',
      status: 200,
      when: 'an admin asks for the first page',
      send: () => send(tenants),
    },
    {
      operationId: 'listTenants',
      status: 200,
      when: 'paging, sorting and searching',
      send: () => send(tenants, { query: { page: '0', size: '2', sort: 'label,asc', q: 'o' } }),
    },
    {
      operationId: 'listTenants',
      status: 200,
      when: 'an agent-user asks (only its own)',
      send: () => send(tenants, asDemo),
    },
    {
      operationId: 'listTenants',
      status: 400,
      when: 'the page size is out of range',
      send: () => send(tenants, { query: { size: '0' } }),
    },
    {
      operationId: 'listTenants',
      status: 400,
      when: 'a query parameter is unknown',
      send: () => send(tenants, { query: { colour: 'blue' } }),
    },
    {
      operationId: 'listTenants',
      status: 401,
      when: 'no token is sent',
      send: () => send(tenants, anonymous),
    },
    {
      operationId: 'listTenants',
      status: 403,
      when: 'the token carries neither role',
      send: () => send(tenants, withoutRole()),
    },
    // getTenant
    {
      operationId: 'getTenant',
      status: 200,
      when: 'the tenant exists',
      send: () => send(tenant('acme')),
    },
    {
      operationId: 'getTenant',
      status: 200,
      when: 'an agent-user asks for its own tenant',
      send: () => send(tenant('demo'), asDemo),
    },
    {
      operationId: 'getTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => send(tenant('.dot')),
    },
    {
      operationId: 'getTenant',
      status: 401,
      when: 'no token is sent',
      send: () => send(tenant('acme'), anonymous),
    },
    {
      operationId: 'getTenant',
      status: 403,
      when: 'an agent-user asks for another tenant',
      send: () => send(tenant('other'), asDemo),
    },
    {
      operationId: 'getTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => send(tenant('nobody')),
    },
  ];
}
