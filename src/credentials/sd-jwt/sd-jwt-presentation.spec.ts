import { nonDisclosableClaims } from './disclosure-frame.js';
import { disclosedPayload, parseSdJwt, sha256Base64url } from './sd-jwt-presentation.js';

type Json = Record<string, unknown>;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A disclosure and its digest. */
function disclose(...content: unknown[]): { encoded: string; digest: string } {
  const encoded = b64(content);
  return { encoded, digest: sha256Base64url(encoded) };
}

/** What RFC 9901 §7.1 makes of `payload` with `disclosures` (the signature is not looked at here). */
async function unpack(payload: Json, disclosures: string[]) {
  const jwt = `${b64({ alg: 'ES256', typ: 'dc+sd-jwt' })}.${b64(payload)}.AA`;
  const parsed = parseSdJwt(`${[jwt, ...disclosures].join('~')}~`);
  if ('code' in parsed) throw new Error(parsed.reason);
  return disclosedPayload(parsed);
}

describe('SD-JWT disclosures', () => {
  const name = disclose('s1', 'given_name', 'Erika');
  const locality = disclose('s2', 'locality', 'Köln');
  const nationality = disclose('s3', 'FR');

  it('puts object properties and array elements in place, nested, and drops what is not disclosed', async () => {
    const address = disclose('s4', 'address', { _sd: [locality.digest], street: 'x' });
    const payload = {
      _sd: [name.digest, address.digest, sha256Base64url('decoy')],
      _sd_alg: 'sha-256',
      nationalities: ['DE', { '...': nationality.digest }, { '...': sha256Base64url('hidden') }],
      iss: 'did:example:1',
    };
    const result = await unpack(payload, [
      name.encoded,
      address.encoded,
      locality.encoded,
      nationality.encoded,
    ]);
    expect(result).toEqual({
      claims: {
        given_name: 'Erika',
        address: { street: 'x', locality: 'Köln' },
        nationalities: ['DE', 'FR'],
        iss: 'did:example:1',
      },
    });
    expect(await unpack(payload, [])).toEqual({
      claims: { nationalities: ['DE'], iss: 'did:example:1' },
    });
  });

  it.each([
    ['another _sd_alg', { _sd: [name.digest], _sd_alg: 'sha-512' }, [name.encoded], /_sd_alg/],
    ['a digest used twice', { _sd: [name.digest, name.digest] }, [name.encoded], /more than once/],
    [
      'a disclosed claim that is there in the clear',
      { _sd: [name.digest], given_name: 'Max' },
      [name.encoded],
      /appears twice in one object/,
    ],
    [
      'an array element disclosure in _sd',
      { _sd: [nationality.digest] },
      [nationality.encoded],
      /_sd digest names a disclosure of an array element/,
    ],
    [
      'a property disclosure as an array element',
      { list: [{ '...': name.digest }] },
      [name.encoded],
      /array element digest names a disclosure of an object property/,
    ],
    [
      'a disclosure of the reserved _sd',
      { _sd: [disclose('s', '_sd', []).digest] },
      [disclose('s', '_sd', []).encoded],
      /reserved claim _sd/,
    ],
    ['an _sd that is not an array', { _sd: name.digest }, [name.encoded], /not an array/],
    ['a disclosure that is no array', { _sd: [] }, [b64({ a: 1 })], /JSON array/],
    ['a disclosure with a number salt', { _sd: [] }, [b64([1, 'a', 'b'])], /salt/],
  ])('refuses %s as disclosure_invalid', async (_, payload, disclosures, reason) => {
    const result = await unpack(payload, disclosures);
    expect(result).toEqual({ code: 'disclosure_invalid', reason: expect.stringMatching(reason) });
  });

  it('refuses nesting beyond the limit before unpacking', async () => {
    let value: unknown = 'leaf';
    for (let level = 0; level < 40; level++) value = { inner: value };
    expect(await unpack({ deep: value }, [])).toMatchObject({
      code: 'presentation_malformed',
      reason: expect.stringMatching(/nested more than 32 levels/),
    });
  });

  it('refuses a top-level disclosure of a claim the SD-JWT VC draft keeps plain, and allows the name deeper', async () => {
    for (const claim of nonDisclosableClaims) {
      const hidden = disclose('s7', claim, { status_list: { idx: 1, uri: 'https://x.example/l' } });
      expect([claim, await unpack({ _sd: [hidden.digest] }, [hidden.encoded])]).toEqual([
        claim,
        {
          code: 'disclosure_invalid',
          reason: `a disclosure names the claim ${claim}, which may not be selectively disclosed`,
        },
      ]);
    }
    const nested = disclose('s8', 'status', 'active');
    expect(await unpack({ membership: { _sd: [nested.digest] } }, [nested.encoded])).toEqual({
      claims: { membership: { status: 'active' } },
    });
  });

  it('names a deeply nested or long _sd_alg by its kind, cut short', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const payload = Buffer.from(`{"_sd_alg":${deep}}`).toString('base64url');
    const parsed = parseSdJwt(`${b64({ alg: 'ES256' })}.${payload}.AA~`);
    if ('code' in parsed) throw new Error(parsed.reason);
    expect(await disclosedPayload(parsed)).toEqual({
      code: 'disclosure_invalid',
      reason: "the payload's _sd_alg is an array, not sha-256",
    });
    const long = await unpack({ _sd_alg: 'x'.repeat(5_000) }, []);
    expect(long).toEqual({
      code: 'disclosure_invalid',
      reason: `the payload's _sd_alg is '${'x'.repeat(100)}…', not sha-256`,
    });
  });

  it('keeps what sd_hash covers: everything up to the last tilde', () => {
    const parsed = parseSdJwt(`${b64({})}.${b64({})}.AA~${name.encoded}~kb.jwt.sig`);
    expect(parsed).toMatchObject({
      withoutKb: `${b64({})}.${b64({})}.AA~${name.encoded}~`,
      kbJwt: 'kb.jwt.sig',
      disclosures: [name.encoded],
    });
  });
});
