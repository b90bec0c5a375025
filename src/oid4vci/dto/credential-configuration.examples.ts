import { type CredentialFormat, type SigningAlgorithm } from './credential-configuration.dto.js';

// The OpenAPI document's examples of credential configurations, and the demo configurations' shapes.

/** The employee badge's claims from the login: what makes it issuable by the authorization code flow. */
export const claimsFromLoginExample = {
  given_name: 'given_name',
  employee_id: 'preferred_username',
};

export const configurationExample = {
  id: 'EmployeeBadge_sd_jwt',
  tenantId: 'acme',
  format: 'dc+sd-jwt' as CredentialFormat,
  vct: 'https://acme.example/credentials/employee-badge',
  doctype: null as string | null,
  credentialDefinition: null,
  claims: [
    { path: ['given_name'], mandatory: true, display: [{ name: 'Given name', locale: 'en' }] },
    { path: ['employee_id'], mandatory: true, display: [{ name: 'Employee id', locale: 'en' }] },
  ],
  display: [
    {
      name: 'Employee badge',
      locale: 'en',
      logo: { uri: 'https://acme.example/badge.png', alt_text: 'The ACME badge' },
      description: 'Proves employment at ACME.',
      background_color: '#12107c',
      text_color: '#ffffff',
    },
  ],
  selectivelyDisclosable: [['given_name'], ['employee_id']],
  expiresInSeconds: 31_536_000,
  revocable: true,
  signingAlgorithm: 'ES256' as SigningAlgorithm,
  cryptosuite: null,
  claimsFromLogin: claimsFromLoginExample as Record<string, string> | null,
  keyAttestationsRequired: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

export const ldpConfigurationExample = {
  format: 'ldp_vc',
  credentialDefinition: {
    '@context': [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
    type: ['VerifiableCredential', 'EmployeeBadge'],
  },
  claims: [{ path: ['credentialSubject', 'name'], display: [{ name: 'Name', locale: 'en' }] }],
  display: [{ name: 'Employee badge', locale: 'en' }],
  cryptosuite: 'eddsa-rdfc-2022',
};

/**
 * The create examples add a kind the demo tenant of local mode does not have yet (it starts with the
 * employee badge, src/oid4vci/demo-configurations.ts), so that they answer 201 as given.
 */
export const visitorPassExamples = {
  sdJwt: {
    id: 'VisitorPass_sd_jwt',
    format: 'dc+sd-jwt',
    vct: 'https://acme.example/credentials/visitor-pass',
    claims: [
      { path: ['given_name'], mandatory: true, display: [{ name: 'Given name', locale: 'en' }] },
      { path: ['valid_on'], display: [{ name: 'Valid on', locale: 'en' }] },
    ],
    display: [{ name: 'Visitor pass', locale: 'en', description: 'Lets a visitor in for a day.' }],
    expiresInSeconds: 86_400,
    claimsFromLogin: { given_name: 'given_name' },
  },
  ldpVc: {
    id: 'VisitorPass_ldp_vc',
    format: 'ldp_vc',
    credentialDefinition: {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://www.w3.org/ns/credentials/examples/v2',
      ],
      type: ['VerifiableCredential', 'VisitorPass'],
    },
    claims: [{ path: ['credentialSubject', 'name'], display: [{ name: 'Name', locale: 'en' }] }],
    display: [{ name: 'Visitor pass', locale: 'en' }],
  },
};

/** The ISO namespace of the mDL's elements (ISO/IEC 18013-5 §7.2.1). */
const mdlNamespace = 'org.iso.18013.5.1';
/** The EU PID's namespace (PID Rulebook, ISO/IEC 18013-5 encoding). */
const pidNamespace = 'eu.europa.ec.eudi.pid.1';

/** mso_mdoc examples (OpenID4VCI 1.0 appendix A.2): a mobile driving licence and an EU PID. */
export const mdocExamples = {
  mdl: {
    id: 'mDL',
    format: 'mso_mdoc',
    doctype: 'org.iso.18013.5.1.mDL',
    claims: [
      {
        path: [mdlNamespace, 'family_name'],
        mandatory: true,
        display: [{ name: 'Family name', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'given_name'],
        mandatory: true,
        display: [{ name: 'Given name', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'birth_date'],
        mandatory: true,
        display: [{ name: 'Date of birth', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'document_number'],
        display: [{ name: 'Licence number', locale: 'en' }],
      },
      { path: [mdlNamespace, 'expiry_date'], display: [{ name: 'Expiry date', locale: 'en' }] },
      {
        path: [mdlNamespace, 'driving_privileges'],
        display: [{ name: 'Categories', locale: 'en' }],
      },
    ],
    display: [{ name: 'Mobile driving licence', locale: 'en' }],
    expiresInSeconds: 31_536_000,
  },
  pid: {
    id: 'PID',
    format: 'mso_mdoc',
    doctype: 'eu.europa.ec.eudi.pid.1',
    claims: [
      {
        path: [pidNamespace, 'family_name'],
        mandatory: true,
        display: [{ name: 'Family name', locale: 'en' }],
      },
      {
        path: [pidNamespace, 'given_name'],
        mandatory: true,
        display: [{ name: 'Given name', locale: 'en' }],
      },
      {
        path: [pidNamespace, 'birth_date'],
        mandatory: true,
        display: [{ name: 'Date of birth', locale: 'en' }],
      },
      { path: [pidNamespace, 'age_over_18'], display: [{ name: 'Over 18', locale: 'en' }] },
      { path: [pidNamespace, 'nationality'], display: [{ name: 'Nationality', locale: 'en' }] },
    ],
    display: [{ name: 'Person identification data', locale: 'en' }],
    expiresInSeconds: 7_776_000,
  },
};

/** A configuration's definition: the body of an update, and of a create with its `id`. */
