import { VerifiedTokens } from './access-token.strategy.js';
import { type Caller } from './caller.js';

function caller(subject: string): Caller {
  return { subject, username: subject, clientId: 'agent-client', roles: [], tenantIds: [] };
}

describe(VerifiedTokens.name, () => {
  let now: number;
  const clock = () => now;
  const seconds = (milliseconds: number) => milliseconds / 1000;

  beforeEach(() => {
    now = 1_800_000_000_000;
  });

  it('answers the caller of a remembered token, and nothing for any other text', () => {
    const tokens = new VerifiedTokens({ now: clock });
    const signature = 'S'.repeat(342);
    const verified = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.${signature}`;
    // A forger keeps the verified token's signature and writes claims of their own in front of it.
    const forged = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.${signature}`;
    tokens.remember(verified, caller('alice'), seconds(now) + 300);
    expect(tokens.get(verified)?.subject).toBe('alice');
    for (const other of [forged, `x${verified}`, `${verified} `, verified.slice(0, -1)]) {
      expect(tokens.get(other)).toBeUndefined();
    }
  });

  it('forgets a token when it expires, allowing the same clock tolerance as the verification', () => {
    const tokens = new VerifiedTokens({ now: clock, maxAgeMs: 60_000 });
    const exp = seconds(now) + 30;
    tokens.remember('token', caller('alice'), exp);
    now = exp * 1000 + 4_999;
    expect(tokens.get('token')).toBeDefined();
    // jsonwebtoken refuses from exp + tolerance (5 s) on: so does the cache.
    now = exp * 1000 + 5_000;
    expect(tokens.get('token')).toBeUndefined();
  });

  it('trusts a long-lived token for at most maxAgeMs before it is verified again', () => {
    const tokens = new VerifiedTokens({ now: clock, maxAgeMs: 60_000 });
    tokens.remember('token', caller('alice'), seconds(now) + 3600);
    now += 59_999;
    expect(tokens.get('token')).toBeDefined();
    now += 1;
    expect(tokens.get('token')).toBeUndefined();
  });

  it('does not keep a token without a numeric exp, or one already past it', () => {
    const tokens = new VerifiedTokens({ now: clock });
    tokens.remember('no-exp', caller('a'), undefined);
    tokens.remember('string-exp', caller('b'), String(seconds(now) + 300));
    tokens.remember('infinite-exp', caller('c'), Number.POSITIVE_INFINITY);
    tokens.remember('expired', caller('d'), seconds(now) - 10);
    expect(tokens.size).toBe(0);
  });

  it('keeps at most `max` tokens, dropping the one used longest ago', () => {
    const tokens = new VerifiedTokens({ now: clock, max: 3 });
    const exp = seconds(now) + 300;
    for (const name of ['one', 'two', 'three']) tokens.remember(name, caller(name), exp);
    // Used again: now the most recent, so 'two' is the least recently used.
    tokens.get('one');
    tokens.remember('four', caller('four'), exp);
    expect(tokens.size).toBe(3);
    expect(tokens.get('two')).toBeUndefined();
    expect(['one', 'three', 'four'].map((name) => tokens.get(name)?.subject)).toEqual([
      'one',
      'three',
      'four',
    ]);
  });
});
