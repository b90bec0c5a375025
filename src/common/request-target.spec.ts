import { loggablePath } from './request-target.js';

describe('loggablePath', () => {
  it('shows an offer reference as its route parameter', () => {
    expect(loggablePath('/ctrl/oid4vci/acme/credential-offers/c2VjcmV0LXJlZmVyZW5jZQ')).toBe(
      '/ctrl/oid4vci/acme/credential-offers/:reference',
    );
  });

  it('shows an OpenID4VP request reference as its route parameter, for the object and the response', () => {
    const reference = 'c2VjcmV0LXJlZmVyZW5jZS1vZi1hLXByZXNlbnRhdGlvbg';
    expect(loggablePath(`/ctrl/oid4vp/acme/requests/${reference}`)).toBe(
      '/ctrl/oid4vp/acme/requests/:reference',
    );
    expect(loggablePath(`/ctrl/oid4vp/acme/requests/${reference}/response`)).toBe(
      '/ctrl/oid4vp/acme/requests/:reference/response',
    );
  });

  it('leaves every other path as it is', () => {
    for (const path of [
      '/ctrl/api/v1.0/oid4vci/offers/0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f',
      '/ctrl/oid4vci/acme/token',
      '/ctrl/api/v1.0/oid4vp/requests/0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f',
      '/ctrl/status-lists/acme/1',
    ]) {
      expect(loggablePath(path)).toBe(path);
    }
  });
});
