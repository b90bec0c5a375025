import { type Caller } from './caller.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

function caller(subject: string): Caller {
  return { subject, username: subject, clientId: 'agent-client', roles: [], tenantIds: [] };
}

describe(VerifiedTokenCache.name, () => {
  let now: number;
  const clock = () => now;
  const seconds = (milliseconds: number) => milliseconds / 1000;

  beforeEach(() => {
    now = 1_800_000_000_000;
  });

  it('answers the caller of a remembered token, and nothing for any other text', () => {
    const cache = new VerifiedTokenCache({ now: clock });
    cache.remember('header.payload.signature', caller('alice'), seconds(now) + 300);
    expect(cache.get('header.payload.signature')?.subject).toBe('alice');
    expect(cache.get('header.payload.signaturE')).toBeUndefined();
    expect(cache.get('header.payload.signature ')).toBeUndefined();
    expect(cache.get('header.payload')).toBeUndefined();
  });

  it('does not take a token that ends like a remembered one for it, whatever comes before', () => {
    const cache = new VerifiedTokenCache({ now: clock });
    const signature = 'S'.repeat(342);
    const verified = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.${signature}`;
    // A forger keeps the verified token's signature and writes claims of their own in front of it.
    const forged = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.${signature}`;
    cache.remember(verified, caller('alice'), seconds(now) + 300);
    expect(cache.get(forged)).toBeUndefined();
    expect(cache.get(`x${verified}`)).toBeUndefined();
    expect(cache.get(verified)?.subject).toBe('alice');
    // A second token with the same ending replaces the first; neither answers for the other.
    cache.remember(forged, caller('mallory'), seconds(now) + 300);
    expect(cache.get(verified)).toBeUndefined();
    expect(cache.get(forged)?.subject).toBe('mallory');
    expect(cache.size).toBe(1);
  });

  it('forgets a token when it expires, allowing the same clock tolerance as the verification', () => {
    const cache = new VerifiedTokenCache({
      now: clock,
      clockToleranceSeconds: 5,
      maxAgeMs: 60_000,
    });
    const exp = seconds(now) + 30;
    cache.remember('token', caller('alice'), exp);
    now = exp * 1000 + 4_999;
    expect(cache.get('token')).toBeDefined();
    // jsonwebtoken refuses from exp + tolerance on: so does the cache.
    now = exp * 1000 + 5_000;
    expect(cache.get('token')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('trusts a long-lived token for at most maxAgeMs before it is verified again', () => {
    const cache = new VerifiedTokenCache({ now: clock, maxAgeMs: 60_000 });
    cache.remember('token', caller('alice'), seconds(now) + 3600);
    now += 59_999;
    expect(cache.get('token')).toBeDefined();
    now += 1;
    expect(cache.get('token')).toBeUndefined();
  });

  it('does not keep a token without a numeric exp, or one already past it', () => {
    const cache = new VerifiedTokenCache({ now: clock, clockToleranceSeconds: 5 });
    cache.remember('no-exp', caller('a'), undefined);
    cache.remember('string-exp', caller('b'), String(seconds(now) + 300));
    cache.remember('infinite-exp', caller('c'), Number.POSITIVE_INFINITY);
    cache.remember('expired', caller('d'), seconds(now) - 10);
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries tokens, dropping the one remembered longest ago', () => {
    const cache = new VerifiedTokenCache({ now: clock, maxEntries: 3 });
    const exp = seconds(now) + 300;
    for (const name of ['one', 'two', 'three']) cache.remember(name, caller(name), exp);
    // Remembered again: now the newest, so 'two' is the oldest.
    cache.remember('one', caller('one'), exp);
    cache.remember('four', caller('four'), exp);
    expect(cache.size).toBe(3);
    expect(cache.get('two')).toBeUndefined();
    expect(['one', 'three', 'four'].map((name) => cache.get(name)?.subject)).toEqual([
      'one',
      'three',
      'four',
    ]);
  });
});
