import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  alternativeNames,
  anchorProblem,
  type Certificate,
  keyIdentifiers,
  parseCertificate,
  pemOf,
  publicKeyJwk,
  validateChain,
} from './chain.js';
import {
  makeCertificate,
  makePki,
  type TestCertificate,
} from '../../test/support/x509-test-pki.js';

const day = 86_400_000;

function parsed(certificate: TestCertificate): Certificate {
  const result = parseCertificate(certificate.pem);
  if (typeof result === 'string') throw new Error(result);
  return result;
}

const x5c = (...certificates: TestCertificate[]) => certificates.map((each) => each.base64);

/** The chain checks over certificates made here by @peculiar/x509, not by the code under test. */
describe('validateChain', () => {
  let pki: Awaited<ReturnType<typeof makePki>>;
  const now = new Date();

  beforeAll(async () => {
    pki = await makePki({ uris: ['https://issuer.example/'], dnsNames: ['issuer.example'] });
  });

  it('validates leaf and intermediate up to the root that issued them, and names each', () => {
    const result = validateChain(x5c(pki.leaf, pki.intermediate), [parsed(pki.root)], now);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.leaf.subject).toBe(pki.leaf.subject);
    expect(result.anchor?.subject).toBe(pki.root.subject);
    expect(result.chain.map((each) => each.subject)).toEqual([
      pki.leaf.subject,
      pki.intermediate.subject,
    ]);
  });

  it('accepts the anchor as the last element, and an intermediate as the anchor', () => {
    const withRoot = validateChain(
      x5c(pki.leaf, pki.intermediate, pki.root),
      [parsed(pki.root)],
      now,
    );
    expect(withRoot).toMatchObject({ ok: true });
    const byIntermediate = validateChain(x5c(pki.leaf), [parsed(pki.intermediate)], now);
    expect(byIntermediate.ok && byIntermediate.anchor?.subject).toBe(pki.intermediate.subject);
  });

  it('refuses a chain no anchor issued, and one missing its intermediate', async () => {
    const other = await makeCertificate('Other root', { ca: true });
    expect(validateChain(x5c(pki.leaf, pki.intermediate), [parsed(other)], now)).toMatchObject({
      ok: false,
      reason: 'untrusted',
    });
    expect(validateChain(x5c(pki.leaf), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'untrusted',
    });
  });

  it('refuses a link signed by another key than its issuer’s', async () => {
    const stranger = await makeCertificate('Stranger', { ca: true });
    const forged = await makeCertificate('Forged', {
      issuer: pki.intermediate,
      signingKeys: stranger.keys,
    });
    expect(validateChain(x5c(forged, pki.intermediate), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'signature_invalid',
    });
    // Named by the right issuer but signed by a stranger: the anchor is not found either.
    const forgedIntermediate = await makeCertificate('Forged intermediate', {
      ca: true,
      issuer: pki.root,
      signingKeys: stranger.keys,
    });
    const leaf = await makeCertificate('Leaf', { issuer: forgedIntermediate });
    expect(validateChain(x5c(leaf, forgedIntermediate), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'untrusted',
    });
  });

  it('refuses certificates out of order', () => {
    expect(validateChain(x5c(pki.intermediate, pki.leaf), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
    });
  });

  it('refuses an expired or not yet valid certificate anywhere in the path, anchor included', async () => {
    const expired = await makeCertificate('Expired', {
      issuer: pki.intermediate,
      notBefore: new Date(Date.now() - 10 * day),
      notAfter: new Date(Date.now() - day),
    });
    const early = await makeCertificate('Early', {
      issuer: pki.intermediate,
      notBefore: new Date(Date.now() + day),
    });
    for (const leaf of [expired, early]) {
      expect(validateChain(x5c(leaf, pki.intermediate), [parsed(pki.root)], now)).toMatchObject({
        ok: false,
        reason: 'not_valid_at',
      });
    }
    const later = new Date(Date.now() + 60 * day);
    expect(validateChain(x5c(pki.leaf, pki.intermediate), [parsed(pki.root)], later)).toMatchObject(
      { ok: false, reason: 'not_valid_at' },
    );
  });

  it('refuses a leaf that is a CA, an issuer that is not, and a path longer than pathLen', async () => {
    const caLeaf = await makeCertificate('CA leaf', {
      ca: true,
      issuer: pki.intermediate,
      usages: 1 | 32,
    });
    expect(validateChain(x5c(caLeaf, pki.intermediate), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'not_ca',
    });
    const notCa = await makeCertificate('Not a CA', { issuer: pki.root, usages: 32 });
    const underNotCa = await makeCertificate('Leaf', { issuer: notCa });
    expect(validateChain(x5c(underNotCa, notCa), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'not_ca',
    });
    // The intermediate allows no intermediate below it.
    const second = await makeCertificate('Second', { ca: true, issuer: pki.intermediate });
    const deep = await makeCertificate('Deep', { issuer: second });
    expect(
      validateChain(x5c(deep, second, pki.intermediate), [parsed(pki.root)], now),
    ).toMatchObject({ ok: false, reason: 'path_too_long' });
  });

  it('refuses a missing or wrong keyUsage on the leaf and on an issuer', async () => {
    const noUsage = await makeCertificate('No usage', { issuer: pki.intermediate, usages: null });
    const encipherOnly = await makeCertificate('Encipher', { issuer: pki.intermediate, usages: 4 });
    for (const leaf of [noUsage, encipherOnly]) {
      expect(validateChain(x5c(leaf, pki.intermediate), [parsed(pki.root)], now)).toMatchObject({
        ok: false,
        reason: 'key_usage',
      });
    }
    const caWithoutSign = await makeCertificate('CA without keyCertSign', {
      ca: true,
      issuer: pki.root,
      usages: 64,
    });
    const leaf = await makeCertificate('Leaf', { issuer: caWithoutSign });
    expect(validateChain(x5c(leaf, caWithoutSign), [parsed(pki.root)], now)).toMatchObject({
      ok: false,
      reason: 'key_usage',
    });
  });

  it('remembers a parsed chain, and still checks its time and its trust at every use', async () => {
    expect(parseCertificate(pki.leaf.base64)).toBe(parseCertificate(pki.leaf.base64));
    const chain = x5c(pki.leaf, pki.intermediate);
    const anchors = [parsed(pki.root)];
    expect(validateChain(chain, anchors, now)).toMatchObject({ ok: true });
    const later = new Date(parsed(pki.leaf).notAfter.getTime() + day);
    expect(validateChain(chain, anchors, later)).toMatchObject({
      ok: false,
      reason: 'not_valid_at',
    });
    const other = await makePki({ uris: ['https://issuer.example/'] });
    expect(validateChain(chain, [parsed(other.root)], now)).toMatchObject({
      ok: false,
      reason: 'untrusted',
    });
    expect(validateChain(chain, anchors, now)).toMatchObject({ ok: true });
  });

  it('refuses malformed x5c values within bounds', () => {
    const anchors = [parsed(pki.root)];
    for (const value of [
      undefined,
      'abc',
      [],
      [1],
      ['%%%'],
      ['AAAA'],
      Array(6).fill(pki.leaf.base64),
    ]) {
      expect(validateChain(value, anchors, now)).toMatchObject({ ok: false, reason: 'malformed' });
    }
    expect(validateChain(['A'.repeat(20_000)], anchors, now)).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });

  it('without anchors accepts any chain that holds together, and no broken one', async () => {
    const result = validateChain(x5c(pki.leaf, pki.intermediate), undefined, now);
    expect(result).toMatchObject({ ok: true, anchor: null });
    const stranger = await makeCertificate('Stranger', { ca: true });
    expect(validateChain(x5c(pki.leaf, stranger), undefined, now)).toMatchObject({
      ok: false,
      reason: 'not_linked',
    });
  });
});

describe('certificate parts', () => {
  it('reads key identifiers, alternative names, the public key and PEM', async () => {
    const { root, intermediate, leaf } = await makePki({
      uris: ['https://issuer.example/path'],
      dnsNames: ['issuer.example'],
    });
    const certificate = parsed(leaf);
    expect(keyIdentifiers(certificate)).toEqual({
      subjectKeyIdentifier: leaf.keyId,
      authorityKeyIdentifier: intermediate.keyId,
    });
    expect(alternativeNames(certificate)).toEqual({
      uris: ['https://issuer.example/path'],
      dnsNames: ['issuer.example'],
    });
    const exported = await crypto.subtle.exportKey('jwk', leaf.keys.publicKey);
    expect(publicKeyJwk(certificate)).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      x: exported.x,
      y: exported.y,
    });
    expect(publicKeyJwk(certificate)).not.toHaveProperty('d');
    expect(parseCertificate(pemOf(parsed(root)))).toMatchObject({ subject: root.subject });
  });

  it('takes a CA or a self-signed certificate as an anchor, not an issued leaf', async () => {
    const { root, intermediate, leaf } = await makePki();
    const selfSigned = await makeCertificate('Lone issuer');
    expect(anchorProblem(parsed(root))).toBeUndefined();
    expect(anchorProblem(parsed(intermediate))).toBeUndefined();
    expect(anchorProblem(parsed(selfSigned))).toBeUndefined();
    expect(anchorProblem(parsed(leaf))).toBe('is neither a CA certificate nor self-signed');
  });

  it('refuses a malformed extension when parsing, and an unknown critical one in a chain', async () => {
    const { intermediate, root } = await makePki();
    const garbled = await makeCertificate('Garbled', {
      issuer: intermediate,
      extraExtensions: [new x509.Extension('2.5.29.17', false, new Uint8Array([4, 1, 255]))],
    });
    expect(parseCertificate(garbled.pem)).toBe('is not a DER X.509 certificate');
    const unknown = await makeCertificate('Unknown', {
      issuer: intermediate,
      extraExtensions: [new x509.Extension('1.2.3.4', true, new Uint8Array([5, 0]))],
    });
    expect(validateChain(x5c(unknown, intermediate), [parsed(root)], new Date())).toMatchObject({
      ok: false,
      reason: 'critical_extension',
    });
  });

  it('names what is not a certificate', () => {
    expect(parseCertificate('hello!')).toBe('is not base64 of DER');
    expect(parseCertificate('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toBe(
      'is not a DER X.509 certificate',
    );
  });
});
