import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { holderRequestOf } from './holder-request.js';

const origin = {
  tenantId: 'acme',
  offerId: '00000000-0000-4000-8000-000000000001',
  configurationId: 'EmployeeBadge_ldp_vc',
  credentialIssuer: 'https://agent.example/ctrl/oid4vci/acme',
};

const ldp: ConfigurationDefinition = {
  format: 'ldp_vc',
  vct: null,
  credentialDefinition: {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'EmployeeBadge'],
  },
  claims: [],
  display: [],
  selectivelyDisclosable: null,
  expiresInSeconds: null,
  revocable: true,
  signingAlgorithm: null,
  cryptosuite: null,
  claimsFromLogin: null,
};

describe('holderRequestOf', () => {
  it('passes ldp_vc claims as given: they are the properties of credentialSubject', () => {
    // A configuration without claims takes any object, even one with a credentialSubject member.
    const claims = { name: 'Ada', credentialSubject: { name: 'Eve' } };
    expect(holderRequestOf(origin, ldp, claims)).toMatchObject({
      format: 'ldp_vc',
      claims,
      cryptosuite: 'eddsa-rdfc-2022',
    });
  });

  it('passes no claims as an empty object once the offer dropped them', () => {
    expect(holderRequestOf(origin, ldp, null).claims).toEqual({});
  });
});
