import { sha256 } from './hashing.js';
import { type IssuerCodeEntity } from './issuer-code.entity.js';
import { type IssuerCodeRepository } from './issuer-code.repository.js';
import { type IssuerSessionEntity } from './issuer-session.entity.js';
import { type IssuerSessionRepository } from './issuer-session.repository.js';
import { IssuerSessions } from './issuer-sessions.js';
import { OAuthError } from '../common/oauth-error.js';
import { type Realm } from './realm.js';

/** IssuerSessions without a database: the repositories are plain objects over two maps. */
describe(IssuerSessions.name, () => {
  const t0 = 1_800_000_000_000;
  const realm = { ssoSessionIdleTimeout: 1800, ssoSessionMaxLifespan: 36000 } as Realm;
  let now: number;
  let sessions: Map<string, IssuerSessionEntity>;
  let codes: Map<string, IssuerCodeEntity>;
  let issuerSessions: IssuerSessions;

  const fakeSessions = {
    findById: (id: string) => Promise.resolve(sessions.get(id) ?? null),
    end: (id: string, at: Date) => {
      const session = sessions.get(id);
      if (session !== undefined && session.endedAt === null) session.endedAt = at;
      return Promise.resolve();
    },
  } as unknown as IssuerSessionRepository;
  const fakeCodes = {
    // As the UPDATE: only an unused, unexpired code is consumed.
    consume: (codeHash: string, at: Date) => {
      const code = codes.get(codeHash);
      if (code === undefined || code.usedAt !== null || code.expiresAt <= at) {
        return Promise.resolve(undefined);
      }
      code.usedAt = at;
      return Promise.resolve({ ...code });
    },
    findByHash: (codeHash: string) => Promise.resolve(codes.get(codeHash) ?? null),
  } as unknown as IssuerCodeRepository;

  function session(id: string, startedAt: number, lastRefreshedAt = startedAt): void {
    sessions.set(id, {
      id,
      userId: 'u1',
      username: 'alice',
      clientId: 'agent-client',
      startedAt: new Date(startedAt),
      lastRefreshedAt: new Date(lastRefreshedAt),
      endedAt: null,
    });
  }

  beforeEach(() => {
    now = t0;
    sessions = new Map();
    codes = new Map();
    issuerSessions = new IssuerSessions(realm, () => now, fakeSessions, fakeCodes);
  });

  async function refusal(sessionId: unknown): Promise<unknown> {
    return issuerSessions.active(sessionId).then(
      () => undefined,
      (error: unknown) => error,
    );
  }

  it('keeps a session active until its idle timeout, and refuses it after as Keycloak does', async () => {
    session('s1', t0);
    now = t0 + 1800 * 1000;
    expect((await issuerSessions.active('s1')).id).toBe('s1');
    now += 1;
    const error = await refusal('s1');
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect((error as OAuthError).description).toBe('Session not active');
  });

  it('refuses a session past its maximum lifespan however recently it was refreshed', async () => {
    session('s1', t0, t0 + 36000 * 1000 - 60_000);
    now = t0 + 36000 * 1000 + 1;
    expect(await issuerSessions.isActive('s1')).toBe(false);
  });

  it('refuses an ended, unknown or non-string session id', async () => {
    session('s1', t0);
    await issuerSessions.end('s1');
    for (const id of ['s1', 'unknown', 42, undefined]) {
      expect(await refusal(id)).toBeInstanceOf(OAuthError);
    }
  });

  it('lets a refresh token live until the idle timeout, never past the maximum lifespan', () => {
    session('s1', t0);
    const s1 = sessions.get('s1') as IssuerSessionEntity;
    expect(issuerSessions.refreshExpiry(s1)).toBe(t0 / 1000 + 1800);
    now = t0 + (36000 - 100) * 1000;
    expect(issuerSessions.refreshExpiry(s1)).toBe(t0 / 1000 + 36000);
  });

  /** A code of session s1, stored by its hash, valid for 60 s. */
  function issueCode(code: string): void {
    const codeHash = sha256(code);
    codes.set(codeHash, {
      codeHash,
      sessionId: 's1',
      clientId: 'agent-client',
      redirectUri: 'http://localhost/cb',
      codeChallenge: null,
      codeChallengeMethod: null,
      scope: 'openid',
      nonce: null,
      expiresAt: new Date(t0 + 60_000),
      usedAt: null,
    });
  }

  it('ends the session a code created when the code is presented a second time', async () => {
    session('s1', t0);
    const code = 'the-code.s1';
    issueCode(code);
    expect((await issuerSessions.consumeCode(code))?.sessionId).toBe('s1');
    expect(await issuerSessions.isActive('s1')).toBe(true);

    expect(await issuerSessions.consumeCode(code)).toBeUndefined();
    expect(await issuerSessions.isActive('s1')).toBe(false);
  });

  it('refuses an expired or unknown code without ending any session', async () => {
    session('s1', t0);
    issueCode('the-code.s1');
    now = t0 + 60_000;
    expect(await issuerSessions.consumeCode('the-code.s1')).toBeUndefined();
    expect(await issuerSessions.consumeCode('never-issued.s1')).toBeUndefined();
    expect(await issuerSessions.isActive('s1')).toBe(true);
  });
});
