import { createHash } from 'node:crypto';
import { drawResponseCode, redirectWithCode } from './response-code.js';

describe('response codes', () => {
  it('draws 256 random bits, kept only as their SHA-256', () => {
    const [first, second] = [drawResponseCode(), drawResponseCode()];
    expect(first.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.code).not.toBe(second.code);
    expect(first.sha256).toEqual(createHash('sha256').update(first.code).digest());
  });

  it('appends the code to the redirect URI, leaving its own query as given', () => {
    expect(redirectWithCode('https://shop.example/done', 'abc')).toBe(
      'https://shop.example/done?response_code=abc',
    );
    expect(redirectWithCode('https://shop.example/done?cart=a%20b&x=1', 'abc')).toBe(
      'https://shop.example/done?cart=a%20b&x=1&response_code=abc',
    );
  });
});
