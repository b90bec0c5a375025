import { type NewCredentialConfiguration } from '../../packages/client/src/index.js';

/** Credential configurations of the OpenID4VCI tests: one of each format. */
export const sdJwtBadge: NewCredentialConfiguration = {
  id: 'EmployeeBadge_sd_jwt',
  format: 'dc+sd-jwt',
  vct: 'https://acme.example/credentials/employee-badge',
  claims: [
    { path: ['given_name'], mandatory: true, display: [{ name: 'Given name', locale: 'en' }] },
    { path: ['address', 'locality'] },
  ],
  display: [{ name: 'Employee badge', locale: 'en', logo: { uri: 'https://acme.example/b.png' } }],
};

export const ldpBadge: NewCredentialConfiguration = {
  id: 'EmployeeBadge_ldp_vc',
  format: 'ldp_vc',
  credentialDefinition: {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'EmployeeBadge'],
  },
  claims: [{ path: ['credentialSubject', 'name'] }],
  display: [{ name: 'Employee badge' }],
};
