import { bruteForceSettings } from '../src/issuer/brute-force-settings.js';
import { IssuerPurge } from '../src/issuer/issuer-purge.js';
import { type RealmFile } from '../src/issuer/realm-file.js';
import { Realm } from '../src/issuer/realm.js';
import {
  authorizeUrl,
  Browser,
  loginForm,
  pkcePair,
  swaggerAuthorizeParameters,
} from './support/browser.js';
import { queryDatabase } from './support/database.js';
import { expectOAuthError, realmPath } from './support/issuer-harness.js';
import { realmVariant } from './support/realm-variant.js';
import {
  postForm,
  startTestService,
  tokenPath,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';

type BruteForceFields = Pick<
  RealmFile,
  | 'bruteForceProtected'
  | 'permanentLockout'
  | 'maxTemporaryLockouts'
  | 'bruteForceStrategy'
  | 'failureFactor'
  | 'waitIncrementSeconds'
  | 'maxFailureWaitSeconds'
  | 'quickLoginCheckMilliSeconds'
  | 'minimumQuickLoginWaitSeconds'
  | 'maxDeltaTimeSeconds'
>;

interface FailureRow {
  num_failures: number;
  num_temporary_lockouts: number;
  failed_login_not_before: Date | null;
  permanently_locked_at: Date | null;
  last_ip_failure: string;
}

/** Small numbers, so that a test walks through lockouts in seconds of the issuer's clock. */
const small: BruteForceFields = {
  bruteForceProtected: true,
  permanentLockout: false,
  failureFactor: 3,
  waitIncrementSeconds: 10,
  maxFailureWaitSeconds: 25,
  quickLoginCheckMilliSeconds: 1000,
  minimumQuickLoginWaitSeconds: 5,
  maxDeltaTimeSeconds: 3600,
};

/** A service on a realm file with these brute force settings (or the shipped ones) and a clock of its own. */
function useBruteForceService(fields?: BruteForceFields, logs?: string[]) {
  const state = { service: undefined as unknown as TestService, now: Date.now() };
  beforeAll(async () => {
    const env: Record<string, string> =
      fields === undefined
        ? {}
        : { AUTH_REALM_FILE: realmVariant((realm) => Object.assign(realm, fields)) };
    state.service = await startTestService({
      env,
      clock: () => state.now,
      logDestination: logs === undefined ? undefined : { write: (line) => logs.push(line) },
    });
  });
  afterAll(async () => {
    await state.service.close();
  });
  // Each test starts with no failures: what an operator's unlock does.
  beforeEach(async () => {
    await queryDatabase(state.service.databaseUrl, 'DELETE FROM issuer_login_failure');
  });

  const advanceMs = (milliseconds: number) => {
    state.now += milliseconds;
  };
  const grant = (username: string, password: string): Promise<ApiResponse> =>
    postForm(state.service.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'password',
      username,
      password,
    });
  /** A wrong password for `username`, answered as Keycloak answers it. */
  const fail = async (username: string) => {
    expectOAuthError(
      await grant(username, 'guess'),
      400,
      'invalid_grant',
      'Invalid user credentials',
    );
  };
  /** The right password: refused (lockout) or accepted. */
  const login = async (username: string) => grant(username, username);
  const expectRefused = async (username: string) => {
    expectOAuthError(await login(username), 400, 'invalid_grant', 'Invalid user credentials');
  };
  const row = async (username: string): Promise<FailureRow | undefined> =>
    (
      await queryDatabase<FailureRow>(
        state.service.databaseUrl,
        `SELECT num_failures, num_temporary_lockouts, failed_login_not_before, permanently_locked_at,
           last_ip_failure FROM issuer_login_failure WHERE username = $1`,
        [username],
      )
    )[0];
  /** The lockout the last failure set, in whole seconds from that failure (0: none). */
  const lockSeconds = async (username: string): Promise<number> => {
    const notBefore = (await row(username))?.failed_login_not_before;
    if (notBefore === null || notBefore === undefined) return 0;
    return Math.max(0, notBefore.getTime() / 1000 - Math.floor(state.now / 1000));
  };
  return { state, advanceMs, grant, fail, login, expectRefused, row, lockSeconds };
}

describe('Embedded issuer: brute force detection (Keycloak 26 DefaultBruteForceProtector)', () => {
  describe('temporary lockout, MULTIPLE strategy', () => {
    const logs: string[] = [];
    const issuer = useBruteForceService(small, logs);
    const { advanceMs, fail, login, expectRefused, row, lockSeconds, state } = issuer;

    it('refuses the right password after failureFactor wrong ones with the answer of a wrong password, until the wait is over; then logs in and forgets the failures', async () => {
      await fail('admin');
      advanceMs(2000);
      await fail('admin');
      expect(await lockSeconds('admin')).toBe(0);
      advanceMs(2000);
      await fail('admin');
      expect(await row('admin')).toMatchObject({ num_failures: 3, num_temporary_lockouts: 1 });
      expect(await lockSeconds('admin')).toBe(10);

      await expectRefused('admin');
      advanceMs(5000);
      // Failures during a lockout are not counted (brute-force.adoc: "count does not increment").
      await fail('admin');
      await expectRefused('admin');
      expect((await row('admin'))?.num_failures).toBe(3);

      advanceMs(5000);
      expect((await login('admin')).status).toBe(200);
      expect(await row('admin')).toBeUndefined();
      await fail('admin');
      expect(await row('admin')).toMatchObject({ num_failures: 1, failed_login_not_before: null });
    });

    it('locks again after every failure past the factor, for increment × ⌊failures / factor⌋, capped at maxFailureWaitSeconds', async () => {
      const waits: number[] = [];
      for (let failure = 1; failure <= 10; failure++) {
        await fail('demo');
        waits.push(await lockSeconds('demo'));
        advanceMs((waits[waits.length - 1] + 2) * 1000);
      }
      expect(waits).toEqual([0, 0, 10, 10, 10, 20, 20, 20, 25, 25]);

      await fail('demo');
      advanceMs(24_000);
      await expectRefused('demo');
      advanceMs(1000);
      expect((await login('demo')).status).toBe(200);
    });

    it('locks for minimumQuickLoginWaitSeconds after two failures within quickLoginCheckMilliSeconds, below the factor', async () => {
      await fail('demo');
      advanceMs(999);
      await fail('demo');
      expect(await row('demo')).toMatchObject({ num_failures: 2, num_temporary_lockouts: 0 });
      expect(await lockSeconds('demo')).toBe(5);
      await expectRefused('demo');
      advanceMs(5000);
      expect((await login('demo')).status).toBe(200);

      await fail('demo');
      advanceMs(1000);
      await fail('demo');
      expect(await lockSeconds('demo')).toBe(0);
    });

    it('starts counting again after maxDeltaTimeSeconds without a failure, and the purge forgets such rows', async () => {
      await fail('demo');
      advanceMs(2000);
      await fail('demo');
      advanceMs(3_600_001);
      await fail('demo');
      expect(await row('demo')).toMatchObject({ num_failures: 1, failed_login_not_before: null });

      advanceMs(3_600_001);
      expect(await state.service.app.get(IssuerPurge).purgeLoginFailures()).toBe(1);
      expect(await row('demo')).toBeUndefined();
    });

    it('counts failures of the login form and the token endpoint together, and the form answers a lockout as a wrong password', async () => {
      const browser = new Browser();
      const issuerUrl = `${state.service.publicBaseUrl}${realmPath}`;
      const redirectUri = `${state.service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
      const page = await browser.get(
        authorizeUrl(issuerUrl, swaggerAuthorizeParameters(redirectUri, pkcePair().challenge, 's')),
      );
      let form = loginForm(page.text);
      const submit = async (password: string) => {
        const answer = await browser.post(form.action, [
          ...form.hidden,
          ['username', 'demo'],
          ['password', password],
        ]);
        if (answer.status === 200) form = loginForm(answer.text);
        return answer;
      };

      // Keycloak's form refuses an empty password without counting it.
      expect((await submit('')).text).toContain('Invalid username or password.');
      expect(await row('demo')).toBeUndefined();
      await submit('guess');
      advanceMs(2000);
      await fail('demo');
      advanceMs(2000);
      const third = await submit('guess');
      expect(third.text).toContain('Invalid username or password.');
      expect(await row('demo')).toMatchObject({ num_failures: 3 });

      const locked = await submit('demo');
      expect(locked.status).toBe(200);
      expect(locked.location).toBeNull();
      expect(locked.text).toContain('Invalid username or password.');
      await expectRefused('demo');

      advanceMs(10_000);
      const signedIn = await submit('demo');
      expect(signedIn.status).toBe(302);
      expect(new URL(signedIn.location ?? '').searchParams.get('code')).toBeTruthy();
      expect(await row('demo')).toBeUndefined();
    });

    it('logs a lockout with the user and the address, never the password', async () => {
      logs.length = 0;
      for (const password of ['First-Guess-1', 'Second-Guess-2', 'Third-Guess-3']) {
        await issuer.grant('demo', password);
        advanceMs(2000);
      }
      await expectRefused('demo');
      const address = (await row('demo'))?.last_ip_failure ?? '';
      expect(address).not.toBe('');
      const log = logs.join('');
      expect(log).toContain(`demo locked out until`);
      expect(log).toContain(`after 3 failed logins, the last from ${address}`);
      expect(log).toContain(`Login of demo from ${address} refused: locked out`);
      for (const password of ['First-Guess-1', 'Second-Guess-2', 'Third-Guess-3']) {
        expect(log).not.toContain(password);
      }
    });
  });

  describe('temporary lockout, LINEAR strategy', () => {
    const { advanceMs, fail, lockSeconds } = useBruteForceService({
      ...small,
      bruteForceStrategy: 'LINEAR',
    });

    it('adds waitIncrementSeconds with every failure from the factor on, capped at maxFailureWaitSeconds', async () => {
      const waits: number[] = [];
      for (let failure = 1; failure <= 5; failure++) {
        await fail('demo');
        waits.push(await lockSeconds('demo'));
        advanceMs((waits[waits.length - 1] + 2) * 1000);
      }
      expect(waits).toEqual([0, 0, 10, 20, 25]);
    });
  });

  describe('permanent lockout', () => {
    const { advanceMs, fail, login, expectRefused, row, state } = useBruteForceService({
      ...small,
      permanentLockout: true,
      maxTemporaryLockouts: 0,
    });

    it('locks the user for good at failureFactor failures, answering as a wrong password, until an operator deletes the row', async () => {
      await fail('demo');
      advanceMs(2000);
      await fail('demo');
      advanceMs(2000);
      await fail('demo');
      expect((await row('demo'))?.permanently_locked_at).toBeInstanceOf(Date);
      await expectRefused('demo');
      advanceMs(86_400_000);
      await expectRefused('demo');
      expect(await state.service.app.get(IssuerPurge).purgeLoginFailures()).toBe(0);

      await queryDatabase(
        state.service.databaseUrl,
        `DELETE FROM issuer_login_failure WHERE username = 'demo'`,
      );
      expect((await login('demo')).status).toBe(200);
    });

    it('still locks for minimumQuickLoginWaitSeconds after a quick failure, without locking for good', async () => {
      await fail('demo');
      advanceMs(500);
      await fail('demo');
      await expectRefused('demo');
      expect((await row('demo'))?.permanently_locked_at).toBeNull();
      advanceMs(5000);
      expect((await login('demo')).status).toBe(200);
    });
  });

  describe('permanent lockout after temporary lockouts', () => {
    const { advanceMs, fail, expectRefused, row, lockSeconds } = useBruteForceService({
      ...small,
      failureFactor: 2,
      permanentLockout: true,
      maxTemporaryLockouts: 1,
    });

    it('locks temporarily maxTemporaryLockouts times, then for good', async () => {
      await fail('demo');
      advanceMs(2000);
      await fail('demo');
      expect(await lockSeconds('demo')).toBe(10);
      expect((await row('demo'))?.permanently_locked_at).toBeNull();
      advanceMs(11_000);
      await fail('demo');
      expect(await row('demo')).toMatchObject({ num_failures: 3, num_temporary_lockouts: 2 });
      expect((await row('demo'))?.permanently_locked_at).toBeInstanceOf(Date);
      advanceMs(60_000);
      await expectRefused('demo');
    });
  });

  describe('with bruteForceProtected false', () => {
    const { fail, login, row } = useBruteForceService({
      ...small,
      bruteForceProtected: false,
      failureFactor: 1,
    });

    it('never locks out and stores nothing, as Keycloak', async () => {
      for (let attempt = 0; attempt < 5; attempt++) await fail('admin');
      expect((await login('admin')).status).toBe(200);
      expect(await row('admin')).toBeUndefined();
    });
  });

  describe('the shipped realm file', () => {
    const { advanceMs, fail, login, expectRefused, row, lockSeconds, grant } =
      useBruteForceService();

    it('counts every one of 20 concurrent wrong passwords, then locks a guessing client out for 60 s at the 30th failure, and for longer as it goes on', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => grant('admin', 'guess')));
      for (const answer of answers) {
        expectOAuthError(answer, 400, 'invalid_grant', 'Invalid user credentials');
      }
      expect((await row('admin'))?.num_failures).toBe(20);
      expect(await lockSeconds('admin')).toBe(0);

      for (let failure = 21; failure <= 29; failure++) await fail('admin');
      expect((await login('admin')).status).toBe(200);
      for (let failure = 1; failure <= 30; failure++) await fail('admin');
      expect(await lockSeconds('admin')).toBe(60);
      await expectRefused('admin');
      advanceMs(60_000);
      await fail('admin');
      expect(await lockSeconds('admin')).toBe(60);
      for (let failure = 32; failure <= 60; failure++) {
        advanceMs(60_000);
        await fail('admin');
      }
      expect(await lockSeconds('admin')).toBe(120);
      advanceMs(120_000);
      expect((await login('admin')).status).toBe(200);
    });
  });

  describe('a burst of concurrent attempts', () => {
    const { state, grant, row, lockSeconds } = useBruteForceService();
    /** Counts the password checks of the running service's realm (Nest's instance, not a copy). */
    const countChecks = (onCheck?: (count: number) => void) => {
      const realm = state.service.app.get(Realm);
      const check = realm.passwordMatches.bind(realm);
      const counter = { checks: 0 };
      realm.passwordMatches = (user, password) => {
        counter.checks++;
        onCheck?.(counter.checks);
        return check(user, password);
      };
      return {
        counter,
        restore: () => {
          realm.passwordMatches = check;
        },
      };
    };

    it('checks no more of 300 concurrent wrong passwords than a sequence gets: failureFactor, then the lockout', async () => {
      const { counter, restore } = countChecks();
      try {
        const answers = await Promise.all(
          Array.from({ length: 300 }, () => grant('admin', 'guess')),
        );
        for (const answer of answers) {
          expectOAuthError(answer, 400, 'invalid_grant', 'Invalid user credentials');
        }
        expect(counter.checks).toBe(30);
        expect(await row('admin')).toMatchObject({ num_failures: 30, num_temporary_lockouts: 1 });
        expect(await lockSeconds('admin')).toBe(60);
      } finally {
        restore();
      }
    });

    it('refuses the right password that arrives in a burst once the limit is reached, keeping the count', async () => {
      let right: Promise<ApiResponse> | undefined;
      // Sent when the 30th wrong password is being checked: the limit is reached, the burst goes on.
      const { counter, restore } = countChecks((count) => {
        if (count === 30) right = grant('admin', 'admin');
      });
      try {
        await Promise.all(Array.from({ length: 200 }, () => grant('admin', 'guess')));
        expect(right).toBeDefined();
        expectOAuthError(await right!, 400, 'invalid_grant', 'Invalid user credentials');
        expect(counter.checks).toBe(30);
        expect(await row('admin')).toMatchObject({ num_failures: 30 });
        expect(await lockSeconds('admin')).toBe(60);
      } finally {
        restore();
      }
    });
  });

  describe('reading the realm file', () => {
    it("keeps Keycloak's defaults for absent fields, with detection off", () => {
      expect(bruteForceSettings({ realm: 'agent-cloud' })).toEqual({
        enabled: false,
        permanentLockout: false,
        maxTemporaryLockouts: 0,
        strategy: 'MULTIPLE',
        failureFactor: 30,
        waitIncrementSeconds: 60,
        maxFailureWaitSeconds: 900,
        quickLoginCheckMilliSeconds: 1000,
        minimumQuickLoginWaitSeconds: 60,
        maxDeltaTimeSeconds: 43_200,
      });
    });

    it.each([
      [{ failureFactor: 0 }, 'failureFactor must be an integer of at least 1'],
      [{ waitIncrementSeconds: -1 }, 'waitIncrementSeconds must be an integer of at least 0'],
      [{ maxFailureWaitSeconds: 1.5 }, 'maxFailureWaitSeconds must be an integer of at least 0'],
      [{ bruteForceStrategy: 'FAST' }, 'bruteForceStrategy must be MULTIPLE or LINEAR'],
      [{ permanentLockout: 'yes' }, 'permanentLockout must be true or false'],
    ])('refuses %j at start-up, naming the field', (fields, message) => {
      expect(() =>
        bruteForceSettings({ realm: 'agent-cloud', ...(fields as unknown as Partial<RealmFile>) }),
      ).toThrow(message);
    });
  });
});
