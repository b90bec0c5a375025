import { didWebUrl } from './did-web.js';

describe('did:web URLs (did:web method specification, Read)', () => {
  it.each([
    ['did:web:w3c-ccg.github.io', 'https://w3c-ccg.github.io/.well-known/did.json'],
    ['did:web:w3c-ccg.github.io:user:alice', 'https://w3c-ccg.github.io/user/alice/did.json'],
    ['did:web:example.com%3A3000:user:alice', 'https://example.com:3000/user/alice/did.json'],
    ['did:web:Example.COM%3a8443', 'https://example.com:8443/.well-known/did.json'],
    ['did:web:example.com:a%20b', 'https://example.com/a%20b/did.json'],
  ])('reads %s at %s', (did, url) => {
    expect(didWebUrl(did)).toBe(url);
  });

  it.each([
    ['did:web:', /has no domain name/],
    ['did:web:example.com%40evil.example', /has no domain name/],
    ['did:web:user@example.com', /has no domain name/],
    ['did:web:.example.com', /has no domain name/],
    ['did:web:example.com%3A99999999', /has no domain name/],
    ['did:web:example.com::alice', /empty or unusable path segment/],
    ['did:web:example.com:..:admin', /empty or unusable path segment/],
    ['did:web:example.com:a/b', /empty or unusable path segment/],
    ['did:web:example.com:a?b', /empty or unusable path segment/],
  ])('refuses %s', (did, reason) => {
    expect(() => didWebUrl(did)).toThrow(reason);
  });
});
