import { createHash, randomBytes } from 'node:crypto';
import {
  PERSON_LOGIN,
  type PersonLogin,
  type PersonLoginFinish,
  type PersonLoginStart,
} from '../../src/oid4vci/authorization/person-login.js';
import { type TestService } from './test-service.js';

/**
 * A login for tests of the authorization server alone (the real one, PersonLoginService, is proven in
 * test/oid4vci-authorization-login.e2e-spec.ts): `start` sends the browser straight back to
 * the issuer's callback with a fresh code, as a provider would after the person logged in; `finish`
 * checks what the issuer sends back (PKCE S256 against the challenge it was started with, the nonce)
 * and answers the claims the test set for the next login.
 */
export function useTestPersonLogin(service: TestService) {
  const started = new Map<string, PersonLoginStart>();
  const login = { claims: {} as Record<string, unknown>, finished: 0 };
  const testLogin: PersonLogin = {
    start(tenantId: string, start: PersonLoginStart) {
      const code = randomBytes(16).toString('base64url');
      started.set(code, start);
      const callback = new URL(`${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}/login/callback`);
      callback.searchParams.set('code', code);
      callback.searchParams.set('state', start.state);
      return Promise.resolve(callback.toString());
    },
    finish(_tenantId: string, finish: PersonLoginFinish) {
      const start = started.get(finish.code);
      started.delete(finish.code);
      const challenge = createHash('sha256').update(finish.codeVerifier).digest('base64url');
      if (start === undefined || start.codeChallenge !== challenge || start.nonce !== finish.nonce)
        return Promise.reject(new Error('not the login that was started'));
      login.finished += 1;
      return Promise.resolve(login.claims);
    },
  };
  // The test's login takes the place of the tenant's login provider in the running service.
  Object.assign(service.app.get<object>(PERSON_LOGIN, { strict: false }), testLogin);
  return login;
}
