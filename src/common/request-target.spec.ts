import { loggablePath } from './request-target.js';

describe('loggablePath', () => {
  it('shows an offer reference as its route parameter', () => {
    expect(loggablePath('/ctrl/oid4vci/acme/credential-offers/c2VjcmV0LXJlZmVyZW5jZQ')).toBe(
      '/ctrl/oid4vci/acme/credential-offers/:reference',
    );
  });

  it('leaves every other path as it is', () => {
    for (const path of [
      '/ctrl/api/v1.0/oid4vci/offers/0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f',
      '/ctrl/oid4vci/acme/token',
      '/ctrl/status-lists/acme/1',
    ]) {
      expect(loggablePath(path)).toBe(path);
    }
  });
});
