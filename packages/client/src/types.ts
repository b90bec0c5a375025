import { type components, type operations } from './generated/schema.js';

type Schemas = components['schemas'];

/** A tenant as the API answers it. */
export type Tenant = Schemas['TenantDto'];
/** One page of tenants, in the original service's Spring-style shape. */
export type TenantPage = Schemas['TenantPageDto'];
/** A tenant's DID: the original's `id`, `public` and `verkey`, and more. */
export type Did = Schemas['DidDto'];
/** The W3C DID document of a tenant's DID. */
export type DidDocument = Schemas['DidDocumentDto'];
/** Which form of the DID document: `multikey` (did:key's current form) or `ed25519-2020` (default). */
export type DidDocumentQuery = NonNullable<operations['getDidDocument']['parameters']['query']>;
/** RFC 9457 problem details, the body of every error. */
export type Problem = Schemas['ProblemDto'];
/** The stable, machine-readable `code` of a problem. */
export type ErrorCode = Problem['code'];

/** The fields of a new tenant. */
export interface NewTenant {
  id: string;
  label: string;
  /** An http(s) URL; null or absent for none. */
  imageUrl?: string | null;
}

/** What to change on a tenant: a label, an image (null removes it), or both. */
export type TenantChanges = Schemas['TenantUpdateFieldsDto'];

/** Paging, sorting and search of the tenant list. */
export type ListTenantsQuery = NonNullable<operations['listTenants']['parameters']['query']>;

/** A credential to issue, with the issue options (cryptosuite, credentialId). */
export type IssueCredentialRequest = Schemas['IssueCredentialDto'];
/** A W3C Verifiable Credential as JSON. */
export type VerifiableCredential = Record<string, unknown>;
/** What a successful verification answers; a failed one throws AgentApiError (422). */
export type Verification = Schemas['VerificationDto'];
/** What a successful presentation verification answers; a failed one throws AgentApiError (422). */
export type PresentationVerification = Schemas['PresentationVerificationDto'];
/** Revoke, suspend or unsuspend: which credential, which purpose, set (true) or clear (false). */
export type CredentialStatusChange = Schemas['UpdateStatusDto'];
/** One credential a tenant issued: its record, never its claims. */
export type IssuedCredential = Schemas['IssuedCredentialRecordDto'];
/** A page of issued credentials. */
export type IssuedCredentialPage = Schemas['IssuedCredentialPageDto'];
/** Paging and filters of the issued credentials. */
export type ListCredentialsQuery = NonNullable<
  operations['listCredentials']['parameters']['query']
>;
/** A subscription to a tenant's events: where, which events, whether it is enabled. */
export type Webhook = Schemas['WebhookDto'];
/** A new subscription, with its signing secret (shown only once). */
export type CreatedWebhook = Schemas['CreatedWebhookDto'];
/** Where and what a new subscription receives. */
export type NewWebhook = Schemas['CreateWebhookDto'];
/** A page of subscriptions. */
export type WebhookPage = Schemas['WebhookPageDto'];
/** Paging of the subscriptions. */
export type ListWebhooksQuery = NonNullable<operations['listWebhooks']['parameters']['query']>;
/** What to change of a subscription. */
export type WebhookChanges = Schemas['UpdateWebhookDto'];
/** A new secret, and when the old one stops signing. */
export type RotatedWebhookSecret = Schemas['RotatedSecretDto'];
/** A page of a subscription's deliveries, each with its attempts. */
export type WebhookDeliveryPage = Schemas['WebhookDeliveryPageDto'];

/** One issuer of a tenant's trusted issuers list. */
export type TrustedIssuer = Schemas['TrustedIssuerDto'];
/** What `createTrustedIssuer` takes. */
export type NewTrustedIssuer = Schemas['CreateTrustedIssuerDto'];
/** A page of `listTrustedIssuers`. */
export type TrustedIssuerPage = Schemas['TrustedIssuerPageDto'];
/** `page`, `size`, `sort` of `listTrustedIssuers`. */
export type ListTrustedIssuersQuery = NonNullable<
  operations['listTrustedIssuers']['parameters']['query']
>;
/** One of a tenant's X.509 trust anchors. */
export type TrustAnchor = Schemas['TrustAnchorDto'];
/** What `createTrustAnchor` takes. */
export type NewTrustAnchor = Schemas['CreateTrustAnchorDto'];
/** A page of `listTrustAnchors`. */
export type TrustAnchorPage = Schemas['TrustAnchorPageDto'];
/** `page`, `size`, `sort` of `listTrustAnchors`. */
export type ListTrustAnchorsQuery = NonNullable<
  operations['listTrustAnchors']['parameters']['query']
>;
/** One of a tenant's trusted wallet providers (its CA certificate). */
export type WalletProvider = Schemas['WalletProviderDto'];
/** What `createWalletProvider` takes. */
export type NewWalletProvider = Schemas['CreateWalletProviderDto'];
/** A page of `listWalletProviders`. */
export type WalletProviderPage = Schemas['WalletProviderPageDto'];
/** `page`, `size`, `sort` of `listWalletProviders`. */
export type ListWalletProvidersQuery = NonNullable<
  operations['listWalletProviders']['parameters']['query']
>;
/** Whether the tenant's token endpoint requires a wallet attestation. */
export type WalletAttestationPolicy = Schemas['WalletAttestationPolicyDto'];
/** One of a tenant's X.509 certificate chains for its ES256 key (`x5c`: leaf first, no root). */
export type Certificate = Schemas['CertificateDto'];
/** A page of `listCertificates`, newest first. */
export type CertificatePage = Schemas['CertificatePageDto'];
/** `page`, `size` of `listCertificates`. */
export type ListCertificatesQuery = NonNullable<
  operations['listCertificates']['parameters']['query']
>;
/** What `createCertificateSigningRequest` takes: names instead of the defaults. */
export type CertificateSigningRequestOptions = Schemas['CreateCsrDto'];
/** One of a tenant's OpenID4VCI credential configurations. */
export type CredentialConfiguration = Schemas['CredentialConfigurationDto'];
/** What `createCredentialConfiguration` takes. */
export type NewCredentialConfiguration = Schemas['CreateCredentialConfigurationDto'];
/** Where the tenant's people log in for credentials of their claims, without its secret. */
export type LoginProvider = Schemas['LoginProviderDto'];
/** What `setLoginProvider` takes: the issuer, the tenant's client and its secret, the scopes. */
export type NewLoginProvider = Schemas['SetLoginProviderDto'];
/** What `updateCredentialConfiguration` takes: the whole definition but the id. */
export type CredentialConfigurationDefinition = Schemas['CredentialConfigurationBodyDto'];
/** A page of `listCredentialConfigurations`. */
export type CredentialConfigurationPage = Schemas['CredentialConfigurationPageDto'];
/** `page`, `size`, `sort` of `listCredentialConfigurations`. */
export type ListCredentialConfigurationsQuery = NonNullable<
  operations['listCredentialConfigurations']['parameters']['query']
>;
/** A field the service defaults, required in the generated type of a request body, made optional. */
type Defaulted<T, Keys extends keyof T> = Omit<T, Keys> & Partial<Pick<T, Keys>>;
/** A transaction code to ask for: `length` 4-8 (default 6), `inputMode` (default `numeric`), `description`. */
export type OfferTxCode = Defaulted<Schemas['TxCodeRequestDto'], 'length' | 'inputMode'>;
/** What `createOffer` takes: `expiresInSeconds` defaults to 600, `byValue` to false, `grant` to pre-authorized_code. */
export type NewOffer = Omit<
  Defaulted<Schemas['CreateOfferDto'], 'expiresInSeconds' | 'byValue' | 'grant'>,
  'txCode'
> & {
  /** `true` for six digits, or its length, input mode and description. */
  txCode?: boolean | OfferTxCode;
};
/** A new offer: its Credential Offer, its link and its transaction code (answered this once). */
export type CreatedOffer = Schemas['CreatedOfferDto'];
/** One of a tenant's credential offers: never its code, transaction code or claims. */
export type Offer = Schemas['OfferDto'];
/** A page of `listOffers`. */
export type OfferPage = Schemas['OfferPageDto'];
/** `page`, `size`, `sort` of `listOffers`. */
export type ListOffersQuery = NonNullable<operations['listOffers']['parameters']['query']>;
/** The image of `offerQrCode`: `svg` answers its text, `png` its bytes. */
export type OfferQrCodeFormat = 'svg' | 'png';
/**
 * What `createPresentationRequest` takes: a DCQL query (formats `dc+sd-jwt`, `ldp_vc`); `responseMode`
 * defaults to `direct_post`, `requestUriMethod` to `get`, `expiresInSeconds` to 300; `redirectUri`
 * (same-device flows) is optional; `clientIdPrefix` (`x509_hash`, `x509_san_dns`,
 * `decentralized_identifier`) defaults to `x509_hash` when the tenant has an X.509 certificate, else
 * to `decentralized_identifier`. `responseMode: 'dc_api' | 'dc_api.jwt'` with `expectedOrigins` asks
 * over the browser's Digital Credentials API: the answer then carries `dcApiRequest`, not a link.
 */
export type NewPresentationRequest = Defaulted<
  Schemas['CreatePresentationRequestDto'],
  'responseMode' | 'requestUriMethod' | 'expiresInSeconds'
>;
/** A new presentation request: its link for the wallet (`openid4vp://...`), or its `dcApiRequest`. */
export type CreatedPresentationRequest = Schemas['CreatedPresentationRequestDto'];
/** What a page passes to `navigator.credentials.get({digital: {requests: [it]}})`. */
export type DcApiRequest = Schemas['DcApiRequestDto'];
/** What `submitDcApiResponse` takes: the page's `origin` and the browser's `data`, as returned. */
export type DcApiResponse = Schemas['DcApiResponseDto'];
/** One of a tenant's presentation requests, with its outcome and, while kept, the disclosed claims. */
export type PresentationRequest = Schemas['PresentationRequestDto'];
/** One verified credential of a presentation request's credential query. */
export type PresentationRequestCredential = Schemas['PresentationRequestCredentialDto'];
/** A page of `listPresentationRequests`. */
export type PresentationRequestPage = Schemas['PresentationRequestPageDto'];
/** `page`, `size`, `sort` of `listPresentationRequests`. */
export type ListPresentationRequestsQuery = NonNullable<
  operations['listPresentationRequests']['parameters']['query']
>;
/** `options` of `verifyCredential`: `checks`, `trustedIssuers`. */
export type VerifyCredentialOptions = Schemas['VerifyOptionsDto'];
/** `options` of `verifyPresentation`: `checks`, `challenge`, `domain`, `trustedIssuers`. */
export type VerifyPresentationOptions = Schemas['VerifyPresentationOptionsDto'];
