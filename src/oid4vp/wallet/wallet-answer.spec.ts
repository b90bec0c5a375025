import { generateKeyPairSync } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { OAuthError } from '../../common/oauth-error.js';
import {
  AnswerFailure,
  answerOf,
  decryptAnswer,
  maxPresentationsPerQuery,
  presentationsOf,
} from './wallet-answer.js';

function responseKey(kid = 'enc-1'): { privateJwk: Record<string, unknown>; publicJwk: JWK } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid },
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid },
  };
}

async function encrypt(
  payload: unknown,
  publicJwk: JWK,
  header: Record<string, unknown> = {},
): Promise<string> {
  const key = await importJWK(publicJwk, 'ECDH-ES');
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return new CompactEncrypt(new TextEncoder().encode(text))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: publicJwk.kid, ...header })
    .encrypt(key);
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as OAuthError;
  }
  throw new Error('not refused');
};

describe('answerOf', () => {
  it('reads vp_token and state in the clear, or response alone', () => {
    expect(answerOf({ vp_token: '{}', state: 's' })).toEqual({
      payload: { vpToken: '{}', state: 's' },
    });
    expect(answerOf({ response: 'a.b.c.d.e' })).toEqual({ encrypted: 'a.b.c.d.e' });
  });

  it('keeps a state posted in the clear beside response, to be compared with the request’s', () => {
    expect(answerOf({ response: 'a.b.c.d.e', state: 's' })).toEqual({
      encrypted: 'a.b.c.d.e',
      clearState: 's',
    });
  });

  it.each([
    [{}, /no vp_token/],
    [{ vp_token: '{}' }, /no state/],
    [{ response: 'a.b.c.d.e', vp_token: '{}' }, /inside response alone/],
    [{ response: 'a.b.c.d.e', vp_token: '{}', state: 's' }, /inside response alone/],
    [{ response: 'a.b.c' }, /not a compact JWE/],
    [{ response: 'a.b.c.d.e$' }, /not a compact JWE/],
  ])('refuses %j', (form, description) => {
    const error = refusal(() => answerOf(form));
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(error.description).toMatch(description);
  });
});

describe('decryptAnswer', () => {
  it('opens a JWE to the request key with A128GCM or A256GCM', async () => {
    const { privateJwk, publicJwk } = responseKey();
    for (const enc of ['A128GCM', 'A256GCM']) {
      const jwe = await encrypt({ vp_token: { badge: ['x'] }, state: 's' }, publicJwk, { enc });
      await expect(decryptAnswer(jwe, privateJwk)).resolves.toEqual({
        vpToken: { badge: ['x'] },
        state: 's',
      });
    }
  });

  it('refuses another key, another kid, another alg or enc, and a payload that is not an object', async () => {
    const { privateJwk, publicJwk } = responseKey();
    const other = responseKey('enc-2');
    const refused = async (jwe: string, why: RegExp) => {
      const error = (await decryptAnswer(jwe, privateJwk).catch((e: unknown) => e)) as OAuthError;
      expect(error).toBeInstanceOf(OAuthError);
      expect(error.description).toMatch(why);
    };
    await refused(
      await encrypt({ state: 's' }, { ...other.publicJwk, kid: 'enc-1' }),
      /not encrypted to/,
    );
    await refused(await encrypt({ state: 's' }, other.publicJwk), /kid names another key/);
    await refused(await encrypt({ state: 's' }, publicJwk, { enc: 'A192GCM' }), /enc must be/);
    await refused(await encrypt('[1]', publicJwk), /not a JSON object/);
    await refused(await encrypt('not json', publicJwk), /not JSON/);
    const rsa = await new CompactEncrypt(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'dir', enc: 'A128GCM' })
      .encrypt(new Uint8Array(16));
    await refused(rsa, /alg must be ECDH-ES/);
    await refused('e30.a.b.c.d', /alg must be/);
    await refused('bm90IGpzb24.a.b.c.d', /header is not JSON/);
  });
});

describe('presentationsOf', () => {
  const ids = ['badge', 'diploma'];

  it('reads a vp_token object keyed by query id, as text or parsed, and wraps a lone presentation', () => {
    const token = { badge: ['a~b~', 'c~d~'], diploma: { type: ['VerifiablePresentation'] } };
    const presentations = presentationsOf(JSON.stringify(token), ids);
    expect([...presentations]).toEqual([
      ['badge', ['a~b~', 'c~d~']],
      ['diploma', [{ type: ['VerifiablePresentation'] }]],
    ]);
    expect([...presentationsOf(token, ids)]).toEqual([...presentations]);
  });

  it.each([
    ['not json', /not JSON/],
    ['["a"]', /not a JSON object/],
    [{}, /presents nothing/],
    [{ other: ['a'] }, /does not ask for/],
    [{ badge: [] }, /1 to 10/],
    [{ badge: Array(maxPresentationsPerQuery + 1).fill('a') }, /1 to 10/],
    [{ badge: [1] }, /neither a string nor an object/],
    [{ badge: [['a']] }, /neither a string nor an object/],
  ])('fails the request for %j as response_malformed', (token, reason) => {
    const error = refusal(() => presentationsOf(token, ids)) as unknown as AnswerFailure;
    expect(error).toBeInstanceOf(AnswerFailure);
    expect(error.code).toBe('response_malformed');
    expect(error.reason).toMatch(reason);
  });
});
