import { disclosedClaimsOf } from './disclosed-claims.js';

const summary = {
  issuer: 'https://issuer.example',
  holderKeyThumbprint: null,
  holderBinding: true,
};

describe('disclosedClaimsOf', () => {
  it('keeps an SD-JWT VC subject’s claims and drops the credential’s own fields', () => {
    expect(
      disclosedClaimsOf({
        ...summary,
        format: 'dc+sd-jwt',
        vct: 'https://vct.example',
        status: 'valid',
        claims: {
          iss: 'https://issuer.example',
          iat: 1,
          exp: 2,
          nbf: 0,
          vct: 'https://vct.example',
          status: { status_list: { idx: 1, uri: 'https://issuer.example/list' } },
          sub: 'subject',
          given_name: 'Erika',
          address: { locality: 'Berlin' },
        },
      }),
    ).toEqual({ sub: 'subject', given_name: 'Erika', address: { locality: 'Berlin' } });
  });

  it('keeps a W3C VC’s credentialSubject alone', () => {
    expect(
      disclosedClaimsOf({
        ...summary,
        format: 'ldp_vc',
        types: ['VerifiableCredential'],
        status: 'none',
        claims: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['VerifiableCredential'],
          issuer: 'did:key:z6Mk',
          credentialSubject: { id: 'did:key:z6Mh', name: 'Ada' },
        },
      }),
    ).toEqual({ credentialSubject: { id: 'did:key:z6Mh', name: 'Ada' } });
  });
});
