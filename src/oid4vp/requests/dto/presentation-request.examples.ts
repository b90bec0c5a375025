import { authorizationRequestUriOf, clientIdOf, requestUriOf } from '../../verifier-urls.js';
import {
  type PresentationRequestStatus,
  type ResponseMode,
} from '../presentation-request.entity.js';
import { dcqlQueryExample, mdocDcqlQueryExample } from './create-presentation-request.dto.js';

// The OpenAPI document's examples of the presentation request's answers.

/** The default client id of a tenant with a certificate: x509_hash (OpenID4VP 1.0 §5.9.3). */
export const exampleClientId = 'x509_hash:Gv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo';
export const exampleDidClientId = clientIdOf(
  'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
);
export const exampleLink = authorizationRequestUriOf(
  exampleClientId,
  requestUriOf('http://localhost:8080', 'globex', 'c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM'),
  'get',
);

export const createdRequestExample = {
  id: '5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90',
  status: 'pending' as PresentationRequestStatus,
  responseMode: 'direct_post' as ResponseMode,
  clientId: exampleClientId,
  authorizationRequestUri: exampleLink,
  expiresAt: '2026-11-25T10:05:00.000Z',
};

/** An unsigned DC API request (OpenID4VP 1.0 appendix A.2): no client_id, the origin stands for it. */
export const unsignedDcApiRequestExample = {
  protocol: 'openid4vp-v1-unsigned' as const,
  data: {
    response_type: 'vp_token',
    response_mode: 'dc_api.jwt',
    nonce: 'bm9uY2UtMjU2LWJpdHMtb2YtcmFuZG9tbmVzcy1oZXJl',
    dcql_query: dcqlQueryExample,
    client_metadata: {
      vp_formats_supported: {
        'dc+sd-jwt': {
          'sd-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
          'kb-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
        },
      },
      jwks: {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk',
            y: 'Hekpm0zfK7C-YccH5iBjcIXgf6YdUvNUac_0At55Okk',
            kid: 'Zp3nOq5L8c2k1mVd4R7sTw',
            use: 'enc',
            alg: 'ECDH-ES',
          },
        ],
      },
      encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
    },
  },
};

/** A signed DC API request (appendix A.3.2): the request object, ES256 with `x5c`, in `request`. */
export const signedDcApiRequestExample = {
  protocol: 'openid4vp-v1-signed' as const,
  data: {
    request:
      'eyJhbGciOiJFUzI1NiIsInR5cCI6Im9hdXRoLWF1dGh6LXJlcStqd3QiLCJ4NWMiOlsiTUlJQi4uLiJdfQ.eyJjbGllbnRfaWQiOiJ4NTA5X2hhc2g6R3Y0cWtWenJuNVdrVzZxQnNFWGRiR3M2ZUZyekNNM2IxeVo2VjBCWkpYbyIsImV4cGVjdGVkX29yaWdpbnMiOlsiaHR0cHM6Ly9zaG9wLmV4YW1wbGUiXSwicmVzcG9uc2VfbW9kZSI6ImRjX2FwaS5qd3QifQ.c2lnbmF0dXJlLWJ5LXRoZS10ZW5hbnRzLWVzMjU2LWtleQ',
  },
};

export const createdDcApiRequestExample = {
  id: '0c6f3e8a-9b2d-4f1e-8a7c-5d4b3a2f1e0d',
  status: 'pending' as PresentationRequestStatus,
  responseMode: 'dc_api.jwt' as ResponseMode,
  clientId: exampleClientId,
  dcApiRequest: signedDcApiRequestExample,
  expiresAt: '2026-11-25T10:05:00.000Z',
};

export const requestExample = {
  ...createdRequestExample,
  requestUriMethod: 'get' as const,
  dcqlQuery: dcqlQueryExample,
  trustedIssuers: null,
  redirectUri: null,
  responseCodeSha256: null,
  expectedOrigins: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  endedAt: null,
  refusedAnswers: 0,
};

export const verifiedRequestExample = {
  ...requestExample,
  authorizationRequestUri: undefined,
  status: 'verified' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  presented: {
    alumni: [
      {
        format: 'dc+sd-jwt',
        issuer: 'http://localhost:8080/ctrl/oid4vci/globex',
        vct: 'https://globex.example/credentials/alumni',
        holderKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        status: 'valid',
        claims: { given_name: 'Alice', alumni_of: 'Globex Academy' },
      },
    ],
  },
};

/** An mDL presented over OpenID4VP (appendix B.2): its elements by namespace, its IACA chain. */
export const verifiedMdocRequestExample = {
  ...requestExample,
  dcqlQuery: mdocDcqlQueryExample,
  authorizationRequestUri: undefined,
  status: 'verified' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  presented: {
    mdl: [
      {
        format: 'mso_mdoc',
        issuer: 'CN=Utopia DS, O=Utopia Transport, C=UT',
        doctype: 'org.iso.18013.5.1.mDL',
        holderKeyThumbprint: 'kS4IwcsBtfu4u6TCnWzJc7r7a9ULmBnvuqEBQeLSYAY',
        status: 'valid',
        certificateChain: {
          leafSubject: 'CN=Utopia DS, O=Utopia Transport, C=UT',
          anchorSubject: 'CN=Utopia IACA, O=Utopia Transport, C=UT',
        },
        claims: {
          'org.iso.18013.5.1': {
            family_name: 'Mustermann',
            birth_date: '1963-08-12',
            driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2020-01-01' }],
          },
        },
      },
    ],
  },
};

export const failedRequestExample = {
  ...requestExample,
  authorizationRequestUri: undefined,
  status: 'failed' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  outcome: {
    code: 'credential_revoked',
    reason: 'alumni: the status list says the credential is revoked (INVALID)',
  },
};
