/**
 * Types of the agent service's API, generated from its OpenAPI document by `npm run client:generate`
 * (openapi-typescript). Do not edit: change the controllers and DTOs, then generate again.
 */

export interface paths {
  '/ctrl/api/v1.0/tenants/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a tenant and its DID
     * @description Fields as query parameters (as Lissi Agent takes them) or as a JSON body; both may be used if they agree.
     */
    post: operations['createTenant'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/tenants/{id}/update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Change a tenant's label or image */
    post: operations['updateTenant'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/tenants/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Delete a tenant and destroy its keys */
    post: operations['deleteTenant'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List tenants, a page at a time */
    get: operations['listTenants'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/tenants/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One tenant */
    get: operations['getTenant'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/did': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's DID
     * @description The DID of the tenant named in the `x-tenant-id` header, with its public key.
     */
    get: operations['getDid'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/did/document': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The W3C DID document of the tenant's DID
     * @description What a did:key resolver derives from the DID, in the form `format` asks for: `multikey` is the did:key specification's current form, `ed25519-2020` (the default, as before) the one with the 2020 suites and a key agreement key. Each is identical to what Digital Bazaar’s did:key resolver derives with the matching key suite; resolvers configured otherwise may differ.
     */
    get: operations['getDidDocument'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/certificates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant’s certificate chains, newest first
     * @description At most one is `active`: the chain the tenant’s ES256 signatures carry in `x5c` (HAIP 1.0).
     */
    get: operations['listCertificates'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/certificates/csr': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A certificate signing request for the tenant’s ES256 key
     * @description PKCS #10, signed by the tenant’s key, asking for keyUsage digitalSignature. `purpose` `x5c` (the default): it names the tenant’s credential issuer identifier (subjectAltName URI) and its host (dNSName) unless told otherwise. `document_signer`: the subject `C=<country>, CN=<tenant>` (country default `MDOC_ISSUER_COUNTRY`), extended key usage 1.0.18013.5.1.2, no names; your IACA adds the rest of the ISO/IEC 18013-5 Annex B.1.4 profile. Give it to your CA, then import the chain it answers with the same `purpose`.
     */
    post: operations['createCertificateSigningRequest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/certificates/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Make a chain from your CA the tenant’s active one
     * @description PEM, the leaf first, then its intermediates; a root at the end is left out of `x5c`. The leaf must certify the tenant’s ES256 key, not be self-signed and name digitalSignature; every certificate must be valid now and each signed by the next. `purpose` `x5c` (the default): the leaf names the tenant’s credential issuer URI or host. `document_signer`: the leaf has the ISO/IEC 18013-5 Annex B.1.4 profile (keyUsage digitalSignature only, extended key usage 1.0.18013.5.1.2, the countryName of its IACA, issuer alternative name, CRL distribution point, key identifiers), and the tenant’s mdocs carry it in `x5chain`. The earlier active chain of that purpose is superseded. A refused chain changes nothing.
     */
    post: operations['importCertificate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/certificates/issue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A certificate from the service’s authority for the tenant’s ES256 key
     * @description The new chain becomes the active one of its purpose and the earlier one of that purpose superseded. `purpose` `x5c` (the default): the chain of the tenant’s JWS (HAIP 1.0); `document_signer`: the document signer of its mdocs (ISO/IEC 18013-5 Annex B.1.4: countryName `MDOC_ISSUER_COUNTRY`, keyUsage digitalSignature, extended key usage 1.0.18013.5.1.2, issuer alternative name, CRL distribution point), the service’s authority acting as IACA. 409 when the operator configured no certificate authority.
     */
    post: operations['issueCertificate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/certificates/authority': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The root certificate of the service’s authority
     * @description The trust anchor of the chains `issue` makes: what wallets and verifiers configure to trust them.
     */
    get: operations['getCertificateAuthority'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/certificate-authorities/{authorityId}/crl': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The CRL of the service’s certificate authority (DER, no token)
     * @description RFC 5280 §5, signed by the authority: the CRL distribution point of the mdoc document signer certificates it issued (ISO/IEC 18013-5 Annex B). It lists none: the service revokes no certificate it issued. Made at most once an hour per instance, valid a week.
     */
    get: operations['getCertificateAuthorityCrl'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/credentials': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The credentials the tenant issued, newest first
     * @description Issuance records (id, types, cryptosuite, when, status entries and their state), never the claims; filter by type or state.
     */
    get: operations['listCredentials'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/credentials/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One credential the tenant issued
     * @description Its issuance record; the id is URL-encoded in the path.
     */
    get: operations['getCredential'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/credentials/issue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Issue a credential signed by the tenant's DID
     * @description W3C VC API issue: a Data Integrity proof (`eddsa-rdfc-2022` by default, or `eddsa-jcs-2022`) made with the tenant's key. The credential may hold at most 950 JSON values (docs/credentials.md, Limits).
     */
    post: operations['issueCredential'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/credentials/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke, suspend or unsuspend a credential the tenant issued
     * @description Sets (`status` absent or true) or clears (`false`, suspension only: a revocation is final) the credential's bit in its status list; the public list (and, for a revocation list, its Status List Token) shows it at once. A `dc+sd-jwt` or `mso_mdoc` credential has revocation only: its suspension is refused (400).
     */
    post: operations['updateCredentialStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/credentials/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verify a credential
     * @description W3C VC API verify: every proof (a set or a chain), that the issuer's DID authorises the signing key, the validity period, and each status entry (read only once proof and issuer passed; remote lists within 5 s in all). 200 only when all pass; otherwise 422 with `verified: false` and `problemDetails`. A credential beyond a limit (a proofValue over 100 characters, more than 4 proofs, 1,000 JSON values, 8 status entries...: docs/credentials.md, Limits) is 400 naming it.
     */
    post: operations['verifyCredential'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/presentations/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verify a presentation and the credentials in it
     * @description W3C VC API: the presentation's `authentication` proof by its holder, the challenge and domain when given, and every credential it carries. 200 only when all pass; otherwise 422 with `verified: false` and `problemDetails`. A presentation beyond a limit (more than 8 credentials or 1,000 JSON values with them, or a credential beyond its own: docs/credentials.md, Limits) is 400 naming it.
     */
    post: operations['verifyPresentation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/status-lists/{tenantId}/{listId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A status list, as a signed BitstringStatusListCredential (no token)
     * @description Signed by the tenant's DID. The `ETag` changes with every status change, which shows here at once; `If-None-Match` answers 304.
     */
    get: operations['getStatusList'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/status-lists/{tenantId}/{listId}/token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A revocation list as a Status List Token (statuslist+jwt, no token needed)
     * @description draft-ietf-oauth-status-list §5.1: the JWT, `typ: statuslist+jwt`, ES256 with the tenant's key (`kid` in the tenant's JWT VC Issuer Metadata; `x5c`, its certificate chain without the root, when it has a certificate), `status_list.bits` 1 (1 = INVALID, revoked). The `uri` of an SD-JWT VC's `status.status_list`. The `ETag` changes with every status change, which shows here at once; `If-None-Match` answers 304. A suspension list has no token (404).
     */
    get: operations['getStatusListToken'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/status-lists/{tenantId}/{listId}/publish': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Publish a status list (it always is: for clients that publish explicitly)
     * @description A status change shows in the public list at once, so this only confirms that the list exists and is the caller tenant’s.
     */
    post: operations['publishStatusList'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/jwt-vc-issuer/ctrl/oid4vci/{tenantId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant’s JWT VC Issuer Metadata (no token)
     * @description For the issuer `{PUBLIC_BASE_URL}/ctrl/oid4vci/{tenantId}` (an SD-JWT VC’s `iss`): `jwks` holds the tenant’s public signing keys, ES256 (P-256) and EdDSA (its DID’s Ed25519 key), each with its `kid` (RFC 7638 thumbprint).
     */
    get: operations['getJwtVcIssuerMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trusted-issuers/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add an issuer to the tenant’s trusted issuers
     * @description Once the list has an entry, credential and presentation verification accept only credentials of the listed issuers (unless the request names its own `options.trustedIssuers`). At most 100 entries.
     */
    post: operations['createTrustedIssuer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trusted-issuers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s trusted issuers, newest first */
    get: operations['listTrustedIssuers'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trusted-issuers/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One trusted issuer of the tenant */
    get: operations['getTrustedIssuer'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trusted-issuers/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Remove an issuer from the tenant’s trusted issuers
     * @description Removing the last entry leaves the tenant without a list: any issuer is accepted.
     */
    post: operations['deleteTrustedIssuer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trust-anchors/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add an X.509 trust anchor to the tenant
     * @description A CA certificate or a self-signed one, in PEM. Once the tenant has an anchor, an SD-JWT VC whose header carries `x5c` verifies only when its chain ends at one of them (HAIP 1.0); without any, any chain that holds together. At most 100 anchors.
     */
    post: operations['createTrustAnchor'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trust-anchors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s trust anchors, newest first */
    get: operations['listTrustAnchors'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trust-anchors/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One trust anchor of the tenant */
    get: operations['getTrustAnchor'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/trust-anchors/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Remove a trust anchor of the tenant
     * @description Removing the last anchor leaves the tenant without any: any x5c chain that holds together is accepted.
     */
    post: operations['deleteTrustAnchor'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/wallet-providers/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Trust a wallet provider’s certificate
     * @description The certificate (a CA or a self-signed one, in PEM) that a wallet provider’s wallet attestations and key attestations chain up to through their `x5c` (HAIP 1.0 §4.4, OpenID4VCI 1.0 Appendix D, E). Once the tenant lists one, its token endpoint requires a wallet attestation unless the policy says optional. At most 50.
     */
    post: operations['createWalletProvider'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/wallet-providers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s wallet providers, newest first */
    get: operations['listWalletProviders'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/wallet-providers/policy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Whether the tenant’s token endpoint requires a wallet attestation */
    get: operations['getWalletAttestationPolicy'];
    put?: never;
    /**
     * Require wallet attestations, make them optional, or go back to the default
     * @description required: a token request without a valid wallet attestation is refused (invalid_client); optional: one that is sent must still verify. null: required once the tenant lists a wallet provider, optional while it lists none.
     */
    post: operations['setWalletAttestationPolicy'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/wallet-providers/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One wallet provider of the tenant */
    get: operations['getWalletProvider'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/wallet-providers/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Remove a wallet provider of the tenant
     * @description Attestations chaining up to it are refused from then on. Removing the last one makes the default policy optional.
     */
    post: operations['deleteWalletProvider'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/credential-configurations/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add a credential configuration to the tenant’s OpenID4VCI issuer
     * @description The id is the `credential_configuration_id` wallets see in the issuer metadata. dc+sd-jwt needs `vct`, ldp_vc needs `credentialDefinition`, mso_mdoc needs `doctype` and claims by `[namespace, element]` (docs/mdoc.md). At most 50 per tenant. (In local mode the demo tenant starts with `EmployeeBadge_sd_jwt` and `EmployeeBadge_ldp_vc`; the examples add a visitor pass.)
     */
    post: operations['createCredentialConfiguration'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/credential-configurations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s credential configurations, newest first */
    get: operations['listCredentialConfigurations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/credential-configurations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One credential configuration of the tenant */
    get: operations['getCredentialConfiguration'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/credential-configurations/{id}/update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replace a credential configuration’s definition
     * @description The body is the whole definition, as on create without `id`: a field left out takes its default.
     */
    post: operations['updateCredentialConfiguration'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/credential-configurations/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Remove a credential configuration
     * @description Its entry leaves the issuer metadata at once.
     */
    post: operations['deleteCredentialConfiguration'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/openid-credential-issuer/ctrl/oid4vci/{tenantId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant’s OpenID4VCI Credential Issuer Metadata (no token)
     * @description For the credential issuer `{PUBLIC_BASE_URL}/ctrl/oid4vci/{tenantId}`; `credential_configurations_supported` lists the tenant’s credential configurations.
     */
    get: operations['getCredentialIssuerMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/oauth-authorization-server/ctrl/oid4vci/{tenantId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant issuer’s OAuth 2.0 Authorization Server Metadata (no token)
     * @description RFC 8414, for the pre-authorized code flow of OpenID4VCI.
     */
    get: operations['getAuthorizationServerMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/offers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s credential offers, newest first */
    get: operations['listOffers'];
    put?: never;
    /**
     * Offer a credential to a wallet
     * @description Answers the Credential Offer and the link for the wallet (by reference unless `byValue`); the transaction code, when asked for, is answered here only. The offer stays open 600 seconds unless told; at most 1000 open offers per tenant, and a burst under that cap never fails. The claims are stored sealed and never answered.
     */
    post: operations['createOffer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/offers/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One credential offer of the tenant */
    get: operations['getOffer'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/offers/{id}/withdraw': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Withdraw an open credential offer
     * @description Its claims are dropped; the wallet can no longer use it.
     */
    post: operations['withdrawOffer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/offers/{id}/qr.svg': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The open offer’s link as a QR code (SVG) */
    get: operations['getOfferQrSvg'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/offers/{id}/qr.png': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The open offer’s link as a QR code (PNG) */
    get: operations['getOfferQrPng'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/oid4vci/{tenantId}/credential-offers/{reference}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An open credential offer by its reference (no token)
     * @description The Credential Offer object. An unknown reference is 404 `OFFER_NOT_FOUND` with the `detail` "There is no open credential offer here.". A reference to an offer that has closed is the same 404 with a `detail` that says why, in words for the wallet's user, and nothing else of the offer: "This credential offer has expired. Ask the issuer for a new one.", "This credential offer has already been used. Ask the issuer for a new one.", "This credential offer was closed after too many wrong transaction codes. Ask the issuer for a new one.", "The issuer has withdrawn this credential offer. Ask the issuer for a new one."
     */
    get: operations['getCredentialOffer'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant’s presentation requests, newest first */
    get: operations['listPresentationRequests'];
    put?: never;
    /**
     * Ask a wallet to present credentials
     * @description Answers the link for the wallet (`openid4vp://`, the request object by reference). The tenant is the client as `clientIdPrefix` says (OpenID4VP 1.0 §5.9.3): `x509_hash` by default when it has an active X.509 certificate (the request object signed ES256 with the chain in `x5c`, HAIP 1.0), else its DID (`decentralized_identifier`). The DCQL query is checked (formats dc+sd-jwt, ldp_vc and mso_mdoc). With `responseMode` `dc_api` or `dc_api.jwt` and `expectedOrigins`, the answer is a `dcApiRequest` for the browser’s Digital Credentials API instead of a link (OpenID4VP 1.0 appendix A): signed for an x509 client id, else unsigned. The request waits 300 seconds unless told; at most 1000 pending requests per tenant.
     */
    post: operations['createPresentationRequest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One presentation request of the tenant, with its outcome
     * @description When verified: per credential query id, each credential’s issuer, type, holder key and status, and the disclosed claims while they are kept. When failed: a stable code and the reason.
     */
    get: operations['getPresentationRequest'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delete a presentation request
     * @description Its outcome and disclosed claims go with it; a pending one can no longer be answered.
     */
    post: operations['deletePresentationRequest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests/{id}/qr.svg': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The pending request’s link as a QR code (SVG) */
    get: operations['getPresentationRequestQrSvg'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests/{id}/qr.png': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The pending request’s link as a QR code (PNG) */
    get: operations['getPresentationRequestQrPng'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vp/requests/{id}/dc-api-response': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Hand over what the browser’s Digital Credentials API returned
     * @description For a pending `dc_api` or `dc_api.jwt` request: `data` as `navigator.credentials.get` returned it and the page’s `origin`, one of the request’s `expectedOrigins`. Verified as the response endpoint verifies a wallet’s answer, every key binding naming `aud: origin:<origin>` and the request’s nonce (OpenID4VP 1.0 appendix A.4). An answer bound to the request concludes it, verified or failed, and the request is answered as GET shows it; one not bound is refused (400 `PRESENTATION_ANSWER_REFUSED`) and counted, the request staying pending.
     */
    post: operations['submitDcApiResponse'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Subscribe a URL to the tenant's events
     * @description Events are POSTed as Standard Webhooks, signed with the secret this answer shows once. The URL must be https on a public address.
     */
    post: operations['createWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The subscriptions to the tenant's events, newest first */
    get: operations['listWebhooks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One subscription to the tenant's events */
    get: operations['getWebhook'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Change a subscription
     * @description Only what is given changes. A new URL is checked like a new subscription; `enabled: true` resumes a disabled one and clears its failure count.
     */
    post: operations['updateWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Give a subscription a new secret
     * @description Deliveries are signed with the new secret, and for 24 hours with the old one too (two signatures in `webhook-signature`), so a receiver can switch without losing one.
     */
    post: operations['rotateWebhookSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delete a subscription
     * @description Its pending deliveries and their log go with it.
     */
    post: operations['deleteWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a webhook.test event to a subscription
     * @description Delivered like any event; follow it in the delivery log.
     */
    post: operations['testWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A subscription's deliveries, newest first
     * @description Each with its state and every attempt: when, the status code, how long, the error, the first 256 bytes of a text or JSON answer. Delivered and failed ones are pruned after the retention period.
     */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a delivery again
     * @description Now, with a fresh retry schedule and the same `webhook-id`, so a receiver that already has it can tell.
     */
    post: operations['redeliverWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/create': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Subscribe a URL to every tenant's events
     * @description Events are POSTed as Standard Webhooks, signed with the secret this answer shows once. The URL must be https on a public address.
     */
    post: operations['createAdminWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The subscriptions to every tenant's events, newest first */
    get: operations['listAdminWebhooks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One subscription to every tenant's events */
    get: operations['getAdminWebhook'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Change a subscription
     * @description Only what is given changes. A new URL is checked like a new subscription; `enabled: true` resumes a disabled one and clears its failure count.
     */
    post: operations['updateAdminWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Give a subscription a new secret
     * @description Deliveries are signed with the new secret, and for 24 hours with the old one too (two signatures in `webhook-signature`), so a receiver can switch without losing one.
     */
    post: operations['rotateAdminWebhookSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delete a subscription
     * @description Its pending deliveries and their log go with it.
     */
    post: operations['deleteAdminWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a webhook.test event to a subscription
     * @description Delivered like any event; follow it in the delivery log.
     */
    post: operations['testAdminWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A subscription's deliveries, newest first
     * @description Each with its state and every attempt: when, the status code, how long, the error, the first 256 bytes of a text or JSON answer. Delivered and failed ones are pruned after the retention period.
     */
    get: operations['listAdminWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a delivery again
     * @description Now, with a fresh retry schedule and the same `webhook-id`, so a receiver that already has it can tell.
     */
    post: operations['redeliverAdminWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/health/live': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The process is up */
    get: operations['live'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Ready to serve: the database answers and the issuer keys are there */
    get: operations['ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/login-provider': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant’s login provider, or the default
     * @description Without one set, the default: the bundled realm (the service’s token issuer) and its client `agent-issuance-login`.
     */
    get: operations['getLoginProvider'];
    put?: never;
    /**
     * Set the OpenID provider people log in at for the tenant’s credentials
     * @description Replaces the tenant’s login provider. The issuer’s discovery document is fetched and checked first (code flow, PKCE S256, client_secret_basic or client_secret_post); if that fails, nothing changes (422). Register the answer’s `redirectUri` with the client at the provider. The secret is stored sealed and never answered.
     */
    post: operations['setLoginProvider'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ctrl/api/v1.0/oid4vci/login-provider/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Go back to the default login provider
     * @description Removes the tenant’s provider and its secret; 204 also when it had none.
     */
    post: operations['deleteLoginProvider'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    FieldErrorDto: {
      /**
       * @description The field, query parameter or header that is wrong.
       * @example id
       */
      field: string;
      /** @example must be 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit */
      message: string;
    };
    CheckProblemDto: {
      /**
       * Format: uri
       * @example https://w3id.org/security#PROOF_VERIFICATION_ERROR
       */
      type: string;
      /**
       * @example proof
       * @enum {string}
       */
      check:
        | 'proof'
        | 'issuer'
        | 'validity'
        | 'status'
        | 'holder'
        | 'challenge'
        | 'domain'
        | 'credential';
      /** @example Proof verification failed */
      title: string;
      /** @example proof (eddsa-rdfc-2022): Invalid signature. */
      detail: string;
    };
    ProblemDto: {
      /**
       * Format: uri
       * @description A URI naming the problem type; GET it for a description.
       * @example http://localhost:8080/ctrl/problems/tenant-not-found
       */
      type: string;
      /** @example Tenant not found */
      title: string;
      /**
       * @description The HTTP status, repeated.
       * @example 404
       */
      status: number;
      /**
       * @description What happened, for a person.
       * @example No tenant with id 'acme'.
       */
      detail: string;
      /**
       * @description The path of the request.
       * @example /ctrl/api/v1.0/did
       */
      instance: string;
      /**
       * @description Stable, machine-readable error code.
       * @example TENANT_NOT_FOUND
       * @enum {string}
       */
      code:
        | 'VALIDATION_FAILED'
        | 'MALFORMED_REQUEST'
        | 'MALFORMED_JSON'
        | 'QUERY_BODY_MISMATCH'
        | 'NOTHING_TO_UPDATE'
        | 'CREDENTIAL_INVALID'
        | 'JSONLD_CONTEXT_UNKNOWN'
        | 'TENANT_HEADER_MISSING'
        | 'TENANT_HEADER_INVALID'
        | 'IDEMPOTENCY_KEY_INVALID'
        | 'CERTIFICATE_CHAIN_MALFORMED'
        | 'PRESENTATION_ANSWER_REFUSED'
        | 'UNAUTHORIZED'
        | 'FORBIDDEN'
        | 'TENANT_NOT_FOUND'
        | 'CREDENTIAL_NOT_FOUND'
        | 'STATUS_LIST_NOT_FOUND'
        | 'WEBHOOK_NOT_FOUND'
        | 'WEBHOOK_DELIVERY_NOT_FOUND'
        | 'TRUSTED_ISSUER_NOT_FOUND'
        | 'TRUST_ANCHOR_NOT_FOUND'
        | 'WALLET_PROVIDER_NOT_FOUND'
        | 'CREDENTIAL_CONFIGURATION_NOT_FOUND'
        | 'OFFER_NOT_FOUND'
        | 'CERTIFICATE_AUTHORITY_NOT_FOUND'
        | 'PRESENTATION_REQUEST_NOT_FOUND'
        | 'ROUTE_NOT_FOUND'
        | 'PROBLEM_TYPE_NOT_FOUND'
        | 'METHOD_NOT_ALLOWED'
        | 'REQUEST_TIMEOUT'
        | 'TENANT_ALREADY_EXISTS'
        | 'CREDENTIAL_ALREADY_EXISTS'
        | 'IDEMPOTENCY_KEY_IN_USE'
        | 'TRUSTED_ISSUER_ALREADY_EXISTS'
        | 'TRUST_ANCHOR_ALREADY_EXISTS'
        | 'WALLET_PROVIDER_ALREADY_EXISTS'
        | 'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS'
        | 'OFFER_NOT_OPEN'
        | 'PRESENTATION_REQUEST_NOT_PENDING'
        | 'PRESENTATION_REQUEST_OTHER_MODE'
        | 'CERTIFICATE_AUTHORITY_NOT_CONFIGURED'
        | 'CLIENT_ID_PREFIX_UNAVAILABLE'
        | 'PAYLOAD_TOO_LARGE'
        | 'UNSUPPORTED_MEDIA_TYPE'
        | 'CREDENTIAL_NOT_VERIFIED'
        | 'IDEMPOTENCY_KEY_REUSED'
        | 'TRUSTED_ISSUERS_LIMIT_REACHED'
        | 'TRUST_ANCHORS_LIMIT_REACHED'
        | 'WALLET_PROVIDERS_LIMIT_REACHED'
        | 'CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED'
        | 'OFFERS_LIMIT_REACHED'
        | 'LOGIN_PROVIDER_DISCOVERY_FAILED'
        | 'PRESENTATION_REQUESTS_LIMIT_REACHED'
        | 'CERTIFICATE_KEY_MISMATCH'
        | 'CERTIFICATE_SELF_SIGNED'
        | 'CERTIFICATE_NOT_VALID_NOW'
        | 'CERTIFICATE_CHAIN_BROKEN'
        | 'CERTIFICATE_PROFILE_UNSUITABLE'
        | 'RATE_LIMITED'
        | 'HEADERS_TOO_LARGE'
        | 'INTERNAL_ERROR'
        | 'SERVICE_UNAVAILABLE';
      /** @description The invalid inputs, when there are any. */
      errors?: components['schemas']['FieldErrorDto'][];
      /**
       * @description With `CREDENTIAL_NOT_VERIFIED` only: always false.
       * @enum {boolean}
       */
      verified?: false;
      /**
       * @description With `CREDENTIAL_NOT_VERIFIED` only: the checks that were made.
       * @example [
       *       "proof",
       *       "issuer",
       *       "validity",
       *       "status"
       *     ]
       */
      checks?: string[];
      /** @description With `CREDENTIAL_NOT_VERIFIED` only: every check that failed. */
      problemDetails?: components['schemas']['CheckProblemDto'][];
    };
    TenantFieldsDto: {
      /**
       * @description Tenant id: 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit. Case-sensitive, immutable.
       * @example acme
       */
      id?: string;
      /**
       * @description Human-readable name, 1-200 characters after trimming, no control characters.
       * @example ACME Corp
       */
      label?: string;
      /**
       * @description Logo or picture of the tenant: an http(s) URL of at most 2048 characters. On update, null or an empty value removes it.
       * @example https://acme.example/logo.png
       */
      imageUrl?: string | null;
    };
    TenantDto: {
      /**
       * @description Tenant id, case-sensitive and immutable.
       * @example acme
       */
      id: string;
      /**
       * @description Human-readable name.
       * @example ACME Corp
       */
      label: string;
      /**
       * @description Logo or picture of the tenant (an http or https URL), or null.
       * @example https://acme.example/logo.png
       */
      imageUrl: string | null;
      /**
       * @description The tenant's DID, made with the tenant.
       * @example did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp
       */
      did: string;
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @example 2025-02-01T16:05:12.345Z
       */
      updatedAt: string;
    };
    TenantUpdateFieldsDto: {
      /**
       * @description Human-readable name, 1-200 characters after trimming, no control characters.
       * @example ACME Corp
       */
      label?: string;
      /**
       * @description Logo or picture of the tenant: an http(s) URL of at most 2048 characters. On update, null or an empty value removes it.
       * @example https://acme.example/logo.png
       */
      imageUrl?: string | null;
    };
    TenantPageDto: {
      content: components['schemas']['TenantDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Tenants matching, on all pages. Exact on the last page, for a filtered list (q, or the tenants of an agent-user's claim) and up to 10,000 tenants; above that an unfiltered list reports PostgreSQL's estimate, which follows the table's size closely.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    DidDto: {
      /**
       * @description The DID.
       * @example did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp
       */
      id: string;
      /**
       * @description Anyone can resolve this DID without asking this service (always true for did:key).
       * @example true
       */
      public: boolean;
      /**
       * @description base58btc of the raw 32-byte Ed25519 public key.
       * @example 4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS
       */
      verkey: string;
      /**
       * @description DID method.
       * @example key
       * @enum {string}
       */
      method: 'key';
      /**
       * @description Key type of the DID.
       * @example ed25519
       * @enum {string}
       */
      keyType: 'ed25519';
      /**
       * @description Multibase (base58btc) of the multicodec Ed25519 public key.
       * @example z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp
       */
      publicKeyMultibase: string;
      /**
       * Format: date-time
       * @description When the DID was made (with its tenant).
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string;
    };
    VerificationMethodDto: {
      /** @example did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp */
      id: string;
      /** @enum {string} */
      type: 'Ed25519VerificationKey2020' | 'X25519KeyAgreementKey2020' | 'Multikey';
      /** @example did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp */
      controller: string;
      /** @example z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp */
      publicKeyMultibase: string;
    };
    DidDocumentDto: {
      /**
       * @example [
       *       "https://www.w3.org/ns/did/v1",
       *       "https://w3id.org/security/suites/ed25519-2020/v1",
       *       "https://w3id.org/security/suites/x25519-2020/v1"
       *     ]
       */
      '@context': string[];
      /** @example did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp */
      id: string;
      verificationMethod: components['schemas']['VerificationMethodDto'][];
      authentication: string[];
      assertionMethod: string[];
      capabilityDelegation: string[];
      capabilityInvocation: string[];
      /** @description In the `ed25519-2020` form only. */
      keyAgreement?: components['schemas']['VerificationMethodDto'][];
    };
    CertificateDto: {
      /**
       * Format: uuid
       * @example 7c1e4b2a-9d3f-4e8a-b6c5-1f0e2d3c4b5a
       */
      id: string;
      /**
       * @description `active`: the chain the tenant’s ES256 signatures carry in `x5c`; `superseded`: replaced by a later one; `expired`: was active until its `notAfter`.
       * @example active
       * @enum {string}
       */
      status: 'active' | 'superseded' | 'expired';
      /**
       * @description `authority`: issued by the service’s certificate authority; `imported`: a chain the tenant imported.
       * @example authority
       * @enum {string}
       */
      source: 'authority' | 'imported';
      /**
       * @description `x5c`: the chain of the tenant’s ES256 JWS (HAIP 1.0); `document_signer`: the mdoc document signer chain of its `x5chain` (ISO/IEC 18013-5 Annex B). At most one of each is active.
       * @example x5c
       * @enum {string}
       */
      purpose: 'x5c' | 'document_signer';
      /**
       * @description The leaf’s subject (RFC 4514).
       * @example CN=acme
       */
      subject: string;
      /**
       * @description The leaf’s subjectAltName dNSName entries.
       * @example [
       *       "localhost"
       *     ]
       */
      dnsNames: string[];
      /**
       * @description The leaf’s subjectAltName URI entries.
       * @example [
       *       "http://localhost:8080/ctrl/oid4vci/acme"
       *     ]
       */
      uris: string[];
      /**
       * @description The leaf’s issuer (RFC 4514).
       * @example CN=Agent service development CA (localhost:8080)
       */
      issuer: string;
      /**
       * @description The leaf’s serial number, hex.
       * @example 3f6c2a9d8e1b4c7a9e0d2f4b6a8c1e3d
       */
      serialNumber: string;
      /**
       * Format: date-time
       * @example 2026-11-25T10:00:00.000Z
       */
      notBefore: string;
      /**
       * Format: date-time
       * @example 2027-11-25T10:00:00.000Z
       */
      notAfter: string;
      /**
       * @description The chain as a JOSE `x5c` (RFC 7515 §4.1.6): standard base64 DER, the leaf first, without the root (HAIP 1.0).
       * @example [
       *       "MIIB5TCCAYygAwIBAgIQP2wqnY4bTHqeDS9LaowePTAKBggqhkjOPQQDAjA4MTYwNAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkwHhcNMjYxMTI1MTAwMDAwWhcNMjcxMTI1MTAwMDAwWjAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q44vx1S93E1X8EnTIdCBV7DaJ0bfuTqOBoDCBnTAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDA9BgNVHREENjA0gglsb2NhbGhvc3SGJ2h0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9jdHJsL29pZDR2Y2kvYWNtZTAdBgNVHQ4EFgQUdkWK8mh+DGiS7/s08j21dbepcXwwHwYDVR0jBBgwFoAUhVIemnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgW/3Qjbvs+Rz+Cyc9JJGPrt7ISke3KuB84ZjooT55TjYCIAGY4OA7V19Fugl8hcH4iL3e616WKxeYBgeh4lqMX8hZ"
       *     ]
       */
      x5c: string[];
      /**
       * Format: date-time
       * @example 2026-11-25T10:00:00.000Z
       */
      createdAt: string;
    };
    CertificatePageDto: {
      content: components['schemas']['CertificateDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    CreateCsrDto: {
      /**
       * @description What the certificate will be for: `x5c` (the tenant’s JWS chain, the default; the names below default to the tenant’s issuer URL and host) or `document_signer` (its mdocs: the subject gets `country`, the request asks for extended key usage 1.0.18013.5.1.2, and no names unless given).
       * @enum {string}
       */
      purpose?: 'x5c' | 'document_signer';
      /**
       * @description The subject’s common name; default: the tenant id.
       * @example acme
       */
      subject?: string;
      /**
       * @description The subject’s countryName (ISO 3166-1 alpha-2); default for `document_signer`: the operator’s `MDOC_ISSUER_COUNTRY` (it must be the IACA’s), none for `x5c`.
       * @example DE
       */
      country?: string;
      /**
       * @description subjectAltName dNSName entries; default for `x5c`: the host of the tenant’s credential issuer identifier.
       * @example [
       *       "issuer.example.com"
       *     ]
       */
      dnsNames?: string[];
      /**
       * @description subjectAltName URI entries; default for `x5c`: the tenant’s credential issuer identifier.
       * @example [
       *       "https://issuer.example.com/ctrl/oid4vci/acme"
       *     ]
       */
      uris?: string[];
    };
    CsrDto: {
      /**
       * @description A PKCS #10 certificate signing request (PEM) for the tenant’s ES256 key, signed by it.
       * @example -----BEGIN CERTIFICATE REQUEST-----
       *     MIIBGjCBwQIBADAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0D
       *     AQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q
       *     44vx1S93E1X8EnTIdCBV7DaJ0bfuTqBQME4GCSqGSIb3DQEJDjFBMD8wPQYDVR0R
       *     BDYwNIIJbG9jYWxob3N0hidodHRwOi8vbG9jYWxob3N0OjgwODAvY3RybC9vaWQ0
       *     dmNpL2FjbWUwCgYIKoZIzj0EAwIDSAAwRQIgOOtbv3QPPTt+tzE5VoN6Awg0Mx/C
       *     cL2XexhS+joPE6oCIQCjs064170PzRhsfTm7apmB8kwSRz50mNF3Q6h8kKwHOQ==
       *     -----END CERTIFICATE REQUEST-----
       */
      csr: string;
    };
    ImportCertificateDto: {
      /**
       * @description PEM certificates, the leaf (for the tenant’s ES256 key) first, then its intermediates; a root at the end is accepted and left out of `x5c`. At most 10 certificates, 65536 characters.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIB5TCCAYygAwIBAgIQP2wqnY4bTHqeDS9LaowePTAKBggqhkjOPQQDAjA4MTYw
       *     NAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6
       *     ODA4MCkwHhcNMjYxMTI1MTAwMDAwWhcNMjcxMTI1MTAwMDAwWjAPMQ0wCwYDVQQD
       *     EwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE59qmAWjRrN4xYiNZNAdM
       *     hzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q44vx1S93E1X8EnTIdCBV7DaJ0bfu
       *     TqOBoDCBnTAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDA9BgNVHREENjA0
       *     gglsb2NhbGhvc3SGJ2h0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9jdHJsL29pZDR2Y2kv
       *     YWNtZTAdBgNVHQ4EFgQUdkWK8mh+DGiS7/s08j21dbepcXwwHwYDVR0jBBgwFoAU
       *     hVIemnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgW/3Qjbvs+Rz+
       *     Cyc9JJGPrt7ISke3KuB84ZjooT55TjYCIAGY4OA7V19Fugl8hcH4iL3e616WKxeY
       *     Bgeh4lqMX8hZ
       *     -----END CERTIFICATE-----
       *     -----BEGIN CERTIFICATE-----
       *     MIIBsjCCAVmgAwIBAgIQXRoMPpt/SiyObRsKn459bDAKBggqhkjOPQQDAjA4MTYw
       *     NAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6
       *     ODA4MCkwHhcNMjYxMTI1MDk1OTAwWhcNMzYxMTIzMTAwMDAwWjA4MTYwNAYDVQQD
       *     Ey1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkw
       *     WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASd09KsjA/18ZfrtsT9wg+xHIlMOjpa
       *     kncJVJYEWIO53pOGJ5m9IPI2zg9CPHlhqYtOf3UxYOOQ3oEt9jDojcXvo0UwQzAS
       *     BgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQUhVIe
       *     mnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgbsty4uBonmu7BfHd
       *     +7Ho1BeRBFaa5SRIGacWIHG/7u0CIDVEZ0FEqdV9AsMAMsJ8Kv6JKyr4FGamxfav
       *     F68YZKL0
       *     -----END CERTIFICATE-----
       */
      chain: string;
      /**
       * @description What the chain is for: `x5c` (the tenant’s JWS chain, the default: the leaf names the issuer URL or host) or `document_signer` (its mdocs: the leaf has the ISO/IEC 18013-5 Annex B.1.4 profile).
       * @enum {string}
       */
      purpose?: 'x5c' | 'document_signer';
    };
    IssueCertificateDto: {
      /**
       * @description What the certificate is for: `x5c` (the tenant’s JWS chain, the default) or `document_signer` (its mdocs, ISO/IEC 18013-5 Annex B.1.4).
       * @default x5c
       * @enum {string}
       */
      purpose: 'x5c' | 'document_signer';
    };
    AuthorityCertificateDto: {
      /**
       * @description The root certificate of the service’s certificate authority (PEM): the trust anchor wallets and verifiers configure.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIBsjCCAVmgAwIBAgIQXRoMPpt/SiyObRsKn459bDAKBggqhkjOPQQDAjA4MTYw
       *     NAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6
       *     ODA4MCkwHhcNMjYxMTI1MDk1OTAwWhcNMzYxMTIzMTAwMDAwWjA4MTYwNAYDVQQD
       *     Ey1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkw
       *     WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASd09KsjA/18ZfrtsT9wg+xHIlMOjpa
       *     kncJVJYEWIO53pOGJ5m9IPI2zg9CPHlhqYtOf3UxYOOQ3oEt9jDojcXvo0UwQzAS
       *     BgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQUhVIe
       *     mnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgbsty4uBonmu7BfHd
       *     +7Ho1BeRBFaa5SRIGacWIHG/7u0CIDVEZ0FEqdV9AsMAMsJ8Kv6JKyr4FGamxfav
       *     F68YZKL0
       *     -----END CERTIFICATE-----
       */
      certificate: string;
    };
    StatusStateDto: {
      /**
       * @example revocation
       * @enum {string}
       */
      statusPurpose: 'revocation' | 'suspension';
      /** @example http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10 */
      statusListCredential: string;
      /** @example 94567 */
      statusListIndex: string;
      /**
       * @description Whether the bit is set (revoked, or suspended).
       * @example false
       */
      set: boolean;
    };
    IssuedCredentialRecordDto: {
      /** @example urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33 */
      id: string;
      /**
       * @example [
       *       "VerifiableCredential",
       *       "AlumniCredential"
       *     ]
       */
      types: string[];
      /**
       * @description The Data Integrity cryptosuite (`ldp_vc`), or the JOSE `alg` (`dc+sd-jwt`; `ES256` for `mso_mdoc`, COSE -7).
       * @example eddsa-rdfc-2022
       */
      cryptosuite: string;
      /**
       * @description The format (OpenID4VCI 1.0 Appendix A).
       * @example ldp_vc
       * @enum {string}
       */
      format: 'ldp_vc' | 'dc+sd-jwt' | 'mso_mdoc';
      /**
       * @description mso_mdoc: the mdoc document type (also its one `types` entry); null otherwise.
       * @example null
       */
      doctype: string | null;
      /**
       * Format: uuid
       * @description The OpenID4VCI offer it was issued for; null for `POST /credentials/issue`.
       * @example null
       */
      offerId: string | null;
      /**
       * @description The credential configuration of that offer; null for `POST /credentials/issue`.
       * @example null
       */
      configurationId: string | null;
      /** @example 2026-11-25T10:00:00.000Z */
      issuedAt: string;
      /**
       * @example active
       * @enum {string}
       */
      state: 'active' | 'suspended' | 'revoked';
      status: components['schemas']['StatusStateDto'][];
    };
    IssuedCredentialPageDto: {
      content: components['schemas']['IssuedCredentialRecordDto'][];
      /**
       * @description The page number; null on a page by cursor (`after`).
       * @example 0
       */
      number: number | null;
      /** @example 20 */
      size: number;
      /**
       * @description null on a page by cursor (`after`), which counts nothing.
       * @example 1
       */
      totalElements: number | null;
      /**
       * @description null on a page by cursor (`after`).
       * @example 1
       */
      totalPages: number | null;
      /**
       * @description Opaque cursor of the last item: pass it as `after` for the next page; null when none follows.
       * @example WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMDAwMFoiLCJ1cm46dXVpZDoxIl0
       */
      after: string | null;
    };
    IssueOptionsDto: {
      /**
       * @default eddsa-rdfc-2022
       * @enum {string}
       */
      cryptosuite: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022';
      /**
       * @description The only proof type issued.
       * @enum {string}
       */
      type?: 'DataIntegrityProof';
      /**
       * @description The credential `id` when the credential has none (else a `urn:uuid:` is made).
       * @example urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33
       */
      credentialId?: string;
      /**
       * @description Status entries the service attaches: `{type: "BitstringStatusListEntry", statusPurpose: "revocation" | "suspension"}` or an array of them; `[]` for none. Absent: the deployment default (a revocation entry). The credential lists revocation before suspension.
       * @example {
       *       "type": "BitstringStatusListEntry",
       *       "statusPurpose": "revocation"
       *     }
       */
      credentialStatus?:
        | {
            [key: string]: unknown;
          }
        | {
            [key: string]: unknown;
          }[];
    };
    IssueCredentialDto: {
      /**
       * @description A VC Data Model 2.0 (or 1.1) credential without `proof` or `credentialStatus`; `issuer` absent or the tenant's DID.
       * @example {
       *       "@context": [
       *         "https://www.w3.org/ns/credentials/v2",
       *         "https://www.w3.org/ns/credentials/examples/v2"
       *       ],
       *       "type": [
       *         "VerifiableCredential",
       *         "AlumniCredential"
       *       ],
       *       "name": "Alumni Credential",
       *       "validFrom": "2026-01-01T00:00:00Z",
       *       "credentialSubject": {
       *         "id": "did:example:abcdefgh",
       *         "alumniOf": "The School of Examples"
       *       }
       *     }
       */
      credential: {
        [key: string]: unknown;
      };
      options?: components['schemas']['IssueOptionsDto'];
    };
    IssuedCredentialDto: {
      /** @description The signed credential. */
      verifiableCredential: {
        [key: string]: unknown;
      };
    };
    StatusRequestDto: {
      /**
       * @description The entry's type; absent: the credential's own list is meant (a dc+sd-jwt or mso_mdoc credential's Token Status List, revocation only).
       * @enum {string}
       */
      type?: 'BitstringStatusListEntry';
      /** @enum {string} */
      statusPurpose: 'revocation' | 'suspension';
    };
    UpdateStatusDto: {
      /** @example urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33 */
      credentialId: string;
      credentialStatus: components['schemas']['StatusRequestDto'];
      /**
       * @description true (default) sets the bit, false clears it (suspension only: a revocation is final).
       * @default true
       */
      status: boolean;
    };
    VerifyOptionsDto: {
      /**
       * @description The checks to run and report (VC API `checks`); absent: all. `proof` and `issuer` run whatever it says.
       * @example [
       *       "proof"
       *     ]
       */
      checks?: ('proof' | 'issuer' | 'validity' | 'status')[];
      /**
       * @description The only issuers whose credentials pass the `issuer` check (ids, usually DIDs; at most 100, each up to 2048 characters). Given, it replaces the tenant's trusted issuers list; absent, that list applies when the tenant keeps one, else any issuer whose key resolves.
       * @example [
       *       "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"
       *     ]
       */
      trustedIssuers?: string[];
    };
    VerifyCredentialDto: {
      /** @description A credential secured with one or more Data Integrity proofs (a set or a chain). */
      verifiableCredential: {
        [key: string]: unknown;
      };
      options?: components['schemas']['VerifyOptionsDto'];
    };
    VerificationDto: {
      /** @enum {boolean} */
      verified: true;
      /**
       * @description The checks made: those `options.checks` asked for (all when absent), always `proof` and `issuer`; `status` only when the proof and issuer checks passed.
       * @example [
       *       "proof",
       *       "issuer",
       *       "validity",
       *       "status"
       *     ]
       */
      checks: string[];
      /**
       * @description The credential's issuer, whose key made a proof: one of the trusted issuers when a list applied, else any issuer whose key resolves.
       * @example did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2
       */
      issuer: string;
      /** @description Each proof checked (without its value). */
      proofs: Record<string, never>[];
      /** @example [] */
      warnings: string[];
    };
    VerifyPresentationOptionsDto: {
      /**
       * @description The checks to run and report (VC API `checks`); absent: all. `proof`, `holder`, `credential` (with `issuer`), `challenge` and `domain` run whatever it says.
       * @example [
       *       "proof"
       *     ]
       */
      checks?: (
        | 'proof'
        | 'holder'
        | 'challenge'
        | 'domain'
        | 'credential'
        | 'issuer'
        | 'validity'
        | 'status'
      )[];
      /**
       * @description The challenge the holder was given: every proof's `challenge` must equal it.
       * @example 7d9c2f0e-challenge
       */
      challenge?: string;
      /**
       * @description The domain the presentation is for: every proof's `domain` must name it.
       * @example verifier.example
       */
      domain?: string;
      /**
       * @description The only issuers whose credentials pass the `issuer` check (ids, usually DIDs; at most 100, each up to 2048 characters). Given, it replaces the tenant's trusted issuers list; absent, that list applies when the tenant keeps one, else any issuer whose key resolves.
       * @example [
       *       "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"
       *     ]
       */
      trustedIssuers?: string[];
    };
    VerifyPresentationDto: {
      /** @description A VerifiablePresentation with an `authentication` proof and the credentials it carries. */
      verifiablePresentation: {
        [key: string]: unknown;
      };
      options?: components['schemas']['VerifyPresentationOptionsDto'];
    };
    PresentedCredentialDto: {
      /** @example urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33 */
      id?: string;
      /**
       * @description The credential's issuer.
       * @example did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2
       */
      issuer?: string;
      /** @description Its proofs (without their values). */
      proofs: Record<string, never>[];
    };
    PresentationVerificationDto: {
      /** @enum {boolean} */
      verified: true;
      /**
       * @example [
       *       "proof",
       *       "holder",
       *       "challenge",
       *       "domain",
       *       "credential"
       *     ]
       */
      checks: string[];
      /** @description The presentation's proofs (without their values). */
      proofs: Record<string, never>[];
      credentials: components['schemas']['PresentedCredentialDto'][];
      /** @example [] */
      warnings: string[];
    };
    CreateTrustedIssuerDto: {
      /**
       * @description The issuer's id exactly as its credentials name it (`issuer` or `issuer.id`): a URL, usually a DID.
       * @example did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2
       */
      issuer: string;
      /**
       * @description A note for people.
       * @example The School of Examples
       */
      description?: string;
    };
    TrustedIssuerDto: {
      /**
       * Format: uuid
       * @example 2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a
       */
      id: string;
      /** @example acme */
      tenantId: string;
      /** @example did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2 */
      issuer: string;
      /** @example The School of Examples */
      description: string | null;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
    };
    TrustedIssuerPageDto: {
      content: components['schemas']['TrustedIssuerDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    CreateTrustAnchorDto: {
      /**
       * @description One X.509 certificate in PEM (RFC 7468): a CA certificate (basicConstraints cA) or a self-signed one, at most 8 KiB of DER.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt
       *     cGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X
       *     DTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs
       *     ZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG
       *     ByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77
       *     2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud
       *     EwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil
       *     zjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo
       *     sf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA
       *     K3B0
       *     -----END CERTIFICATE-----
       */
      certificate: string;
      /**
       * @description A note for people.
       * @example The Example issuing CA
       */
      label?: string;
    };
    TrustAnchorDto: {
      /**
       * Format: uuid
       * @example 5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d
       */
      id: string;
      /** @example acme */
      tenantId: string;
      /** @example The Example issuing CA */
      label: string | null;
      /**
       * @description The certificate’s subject name.
       * @example CN=Example Issuing CA, O=Example, C=NL
       */
      subject: string;
      /**
       * @description The certificate’s issuer name.
       * @example CN=Example Issuing CA, O=Example, C=NL
       */
      issuer: string;
      /** @example 2026-01-01T00:00:00.000Z */
      notBefore: string;
      /** @example 2036-01-01T00:00:00.000Z */
      notAfter: string;
      /**
       * @description The subject key identifier, base64url: the value a DCQL `aki` trusted authority names (OpenID4VP 1.0 §6.1.1).
       * @example QmT6SiUIpc44ijOt7Zl7-UMaVzk
       */
      subjectKeyIdentifier: string | null;
      /**
       * @description The certificate, PEM.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt
       *     cGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X
       *     DTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs
       *     ZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG
       *     ByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77
       *     2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud
       *     EwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil
       *     zjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo
       *     sf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA
       *     K3B0
       *     -----END CERTIFICATE-----
       */
      certificate: string;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
    };
    TrustAnchorPageDto: {
      content: components['schemas']['TrustAnchorDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    CreateWalletProviderDto: {
      /**
       * @description The wallet provider’s X.509 certificate in PEM (RFC 7468): the CA (basicConstraints cA) or self-signed certificate its wallet attestations’ x5c chains end at, at most 8 KiB of DER.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt
       *     cGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X
       *     DTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs
       *     ZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG
       *     ByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77
       *     2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud
       *     EwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil
       *     zjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo
       *     sf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA
       *     K3B0
       *     -----END CERTIFICATE-----
       */
      certificate: string;
      /**
       * @description A note for people.
       * @example Example Wallet Provider
       */
      label?: string;
    };
    WalletProviderDto: {
      /**
       * Format: uuid
       * @example 7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b
       */
      id: string;
      /** @example acme */
      tenantId: string;
      /** @example Example Wallet Provider */
      label: string | null;
      /**
       * @description The certificate’s subject name.
       * @example CN=Example Issuing CA, O=Example, C=NL
       */
      subject: string;
      /**
       * @description The certificate’s issuer name.
       * @example CN=Example Issuing CA, O=Example, C=NL
       */
      issuer: string;
      /** @example 2026-01-01T00:00:00.000Z */
      notBefore: string;
      /** @example 2036-01-01T00:00:00.000Z */
      notAfter: string;
      /**
       * @description The subject key identifier, base64url.
       * @example QmT6SiUIpc44ijOt7Zl7-UMaVzk
       */
      subjectKeyIdentifier: string | null;
      /**
       * @description The certificate, PEM.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt
       *     cGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X
       *     DTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs
       *     ZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG
       *     ByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77
       *     2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud
       *     EwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil
       *     zjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo
       *     sf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA
       *     K3B0
       *     -----END CERTIFICATE-----
       */
      certificate: string;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
    };
    WalletProviderPageDto: {
      content: components['schemas']['WalletProviderDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    WalletAttestationPolicyDto: {
      /**
       * @description Whether the token endpoint requires a wallet attestation (OAuth-Client-Attestation headers). Without an explicit choice: required once the tenant lists a wallet provider, optional while it lists none.
       * @example required
       * @enum {string}
       */
      walletAttestation: 'required' | 'optional';
      /**
       * @description Whether the tenant chose the setting (false: the default applies).
       * @example false
       */
      explicit: boolean;
    };
    SetWalletAttestationPolicyDto: {
      /**
       * @description The setting to keep, or null to go back to the default.
       * @example optional
       * @enum {string|null}
       */
      walletAttestation: 'required' | 'optional' | null;
    };
    CredentialDefinitionDto: {
      /**
       * @example [
       *       "https://www.w3.org/ns/credentials/v2",
       *       "https://www.w3.org/ns/credentials/examples/v2"
       *     ]
       */
      '@context': string[];
      /**
       * @example [
       *       "VerifiableCredential",
       *       "EmployeeBadge"
       *     ]
       */
      type: string[];
    };
    ClaimDisplayDto: {
      /** @example Given name */
      name: string;
      /** @example en */
      locale?: string;
    };
    ClaimDescriptionDto: {
      /**
       * @description Where the claim is in the credential (OpenID4VCI 1.0 Appendix C): keys, array indexes, null for every element. For ldp_vc it starts with `credentialSubject`.
       * @example [
       *       "given_name"
       *     ]
       */
      path: (string | number | null)[];
      /** @description Whether every credential carries the claim. */
      mandatory?: boolean;
      display?: components['schemas']['ClaimDisplayDto'][];
    };
    LogoDto: {
      /** @example https://acme.example/badge.png */
      uri: string;
      /** @example The ACME badge */
      alt_text?: string;
    };
    CredentialDisplayDto: {
      /** @example Employee badge */
      name: string;
      /** @example en */
      locale?: string;
      logo?: components['schemas']['LogoDto'];
      /** @example Proves employment at ACME. */
      description?: string;
      /**
       * @description A CSS color: #hex or a name.
       * @example #12107c
       */
      background_color?: string;
      /**
       * @description A CSS color: #hex or a name.
       * @example #ffffff
       */
      text_color?: string;
    };
    KeyAttestationsRequiredDto: {
      /**
       * @description Key storage levels, one of which `key_storage` must claim.
       * @example [
       *       "iso_18045_high",
       *       "iso_18045_moderate"
       *     ]
       */
      key_storage?: string[];
      /**
       * @description User authentication levels, one of which `user_authentication` must claim.
       * @example [
       *       "iso_18045_high"
       *     ]
       */
      user_authentication?: string[];
    };
    CreateCredentialConfigurationDto: {
      /**
       * @example dc+sd-jwt
       * @enum {string}
       */
      format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
      /**
       * @description The SD-JWT VC type (a URI or a name); required for dc+sd-jwt, refused otherwise.
       * @example https://acme.example/credentials/employee-badge
       */
      vct?: string;
      /**
       * @description The mdoc document type (ISO/IEC 18013-5); required for mso_mdoc, refused otherwise.
       * @example org.iso.18013.5.1.mDL
       */
      doctype?: string;
      /** @description Required for ldp_vc (its `type` includes VerifiableCredential), refused otherwise. */
      credentialDefinition?: components['schemas']['CredentialDefinitionDto'];
      /** @description Default: none. */
      claims?: components['schemas']['ClaimDescriptionDto'][];
      /** @description Default: none. */
      display?: components['schemas']['CredentialDisplayDto'][];
      /**
       * @description dc+sd-jwt only: the claim paths issued as selectively disclosable, each one of `claims`. Default: every claim.
       * @example [
       *       [
       *         "given_name"
       *       ],
       *       [
       *         "employee_id"
       *       ]
       *     ]
       */
      selectivelyDisclosable?: (string | number | null)[][];
      /**
       * @description How long issued credentials are valid, in seconds. Default: no expiry; for mso_mdoc a year (an MSO always has validUntil).
       * @example 31536000
       */
      expiresInSeconds?: number;
      /** @description Whether issued credentials get a status entry. Default: true. */
      revocable?: boolean;
      /**
       * @description dc+sd-jwt: the JOSE algorithm of the issuer signature (default ES256); mso_mdoc: ES256 only (COSE -7); refused for ldp_vc.
       * @enum {string}
       */
      signingAlgorithm?: 'ES256' | 'EdDSA';
      /**
       * @description ldp_vc only: the Data Integrity cryptosuite of the proof. Default: eddsa-rdfc-2022.
       * @enum {string}
       */
      cryptosuite?: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022';
      /**
       * @description The credential claims the person's login gives in the authorization code flow, `{credentialClaim: loginClaim}` (top-level claims; ldp_vc: of credentialSubject). A wallet may start issuance itself (scope or authorization_details without an offer) only when every claim comes from the login. Default: none.
       * @example {
       *       "given_name": "given_name",
       *       "employee_id": "preferred_username"
       *     }
       */
      claimsFromLogin?: {
        [key: string]: string;
      };
      /**
       * @description Requires a key attestation (OpenID4VCI 1.0 Appendix D) in every JWT proof, signed by one of the tenant’s wallet providers, advertised as `key_attestations_required`. Default: none required.
       * @example {
       *       "key_storage": [
       *         "iso_18045_high"
       *       ]
       *     }
       */
      keyAttestationsRequired?: components['schemas']['KeyAttestationsRequiredDto'];
      /**
       * @description The credential configuration id wallets see (`credential_configuration_id`), unique in the tenant.
       * @example EmployeeBadge_sd_jwt
       */
      id: string;
    };
    CredentialConfigurationDto: {
      /** @example EmployeeBadge_sd_jwt */
      id: string;
      /** @example acme */
      tenantId: string;
      /**
       * @example dc+sd-jwt
       * @enum {string}
       */
      format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
      /** @example https://acme.example/credentials/employee-badge */
      vct: string | null;
      /**
       * @description mso_mdoc: the mdoc document type; null for the other formats.
       * @example null
       */
      doctype: string | null;
      /** @description ldp_vc: the credential definition; null for the other formats. */
      credentialDefinition: components['schemas']['CredentialDefinitionDto'] | (never | null);
      claims: components['schemas']['ClaimDescriptionDto'][];
      display: components['schemas']['CredentialDisplayDto'][];
      /** @description dc+sd-jwt: the selectively disclosable claim paths; null for ldp_vc. */
      selectivelyDisclosable: (string | number | null)[][] | null;
      /** @example 31536000 */
      expiresInSeconds: number | null;
      /** @example true */
      revocable: boolean;
      /**
       * @description dc+sd-jwt: the JOSE algorithm; mso_mdoc: ES256 (COSE -7); null for ldp_vc.
       * @example ES256
       * @enum {string|null}
       */
      signingAlgorithm: 'ES256' | 'EdDSA' | null;
      /**
       * @description ldp_vc: the Data Integrity cryptosuite; null for dc+sd-jwt.
       * @example null
       * @enum {string|null}
       */
      cryptosuite: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022' | null;
      /**
       * @description The credential claims the person's login gives (authorization code flow), or null for none.
       * @example {
       *       "given_name": "given_name",
       *       "employee_id": "preferred_username"
       *     }
       */
      claimsFromLogin: {
        [key: string]: string;
      } | null;
      /**
       * @description The key attestations every JWT proof must carry (Appendix D); null: none.
       * @example null
       */
      keyAttestationsRequired: components['schemas']['KeyAttestationsRequiredDto'] | (never | null);
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /** @example 2026-11-25T10:00:00.000Z */
      updatedAt: string;
    };
    CredentialConfigurationPageDto: {
      content: components['schemas']['CredentialConfigurationDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    CredentialConfigurationBodyDto: {
      /**
       * @example dc+sd-jwt
       * @enum {string}
       */
      format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
      /**
       * @description The SD-JWT VC type (a URI or a name); required for dc+sd-jwt, refused otherwise.
       * @example https://acme.example/credentials/employee-badge
       */
      vct?: string;
      /**
       * @description The mdoc document type (ISO/IEC 18013-5); required for mso_mdoc, refused otherwise.
       * @example org.iso.18013.5.1.mDL
       */
      doctype?: string;
      /** @description Required for ldp_vc (its `type` includes VerifiableCredential), refused otherwise. */
      credentialDefinition?: components['schemas']['CredentialDefinitionDto'];
      /** @description Default: none. */
      claims?: components['schemas']['ClaimDescriptionDto'][];
      /** @description Default: none. */
      display?: components['schemas']['CredentialDisplayDto'][];
      /**
       * @description dc+sd-jwt only: the claim paths issued as selectively disclosable, each one of `claims`. Default: every claim.
       * @example [
       *       [
       *         "given_name"
       *       ],
       *       [
       *         "employee_id"
       *       ]
       *     ]
       */
      selectivelyDisclosable?: (string | number | null)[][];
      /**
       * @description How long issued credentials are valid, in seconds. Default: no expiry; for mso_mdoc a year (an MSO always has validUntil).
       * @example 31536000
       */
      expiresInSeconds?: number;
      /** @description Whether issued credentials get a status entry. Default: true. */
      revocable?: boolean;
      /**
       * @description dc+sd-jwt: the JOSE algorithm of the issuer signature (default ES256); mso_mdoc: ES256 only (COSE -7); refused for ldp_vc.
       * @enum {string}
       */
      signingAlgorithm?: 'ES256' | 'EdDSA';
      /**
       * @description ldp_vc only: the Data Integrity cryptosuite of the proof. Default: eddsa-rdfc-2022.
       * @enum {string}
       */
      cryptosuite?: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022';
      /**
       * @description The credential claims the person's login gives in the authorization code flow, `{credentialClaim: loginClaim}` (top-level claims; ldp_vc: of credentialSubject). A wallet may start issuance itself (scope or authorization_details without an offer) only when every claim comes from the login. Default: none.
       * @example {
       *       "given_name": "given_name",
       *       "employee_id": "preferred_username"
       *     }
       */
      claimsFromLogin?: {
        [key: string]: string;
      };
      /**
       * @description Requires a key attestation (OpenID4VCI 1.0 Appendix D) in every JWT proof, signed by one of the tenant’s wallet providers, advertised as `key_attestations_required`. Default: none required.
       * @example {
       *       "key_storage": [
       *         "iso_18045_high"
       *       ]
       *     }
       */
      keyAttestationsRequired?: components['schemas']['KeyAttestationsRequiredDto'];
    };
    TxCodeRequestDto: {
      /**
       * @default 6
       * @example 6
       */
      length: number;
      /**
       * @default numeric
       * @example numeric
       * @enum {string}
       */
      inputMode: 'numeric' | 'text';
      /** @example The code we sent you by e-mail */
      description?: string;
    };
    CreateOfferDto: {
      /**
       * @description The credential configuration to offer.
       * @example EmployeeBadge_sd_jwt
       */
      credentialConfigurationId: string;
      /**
       * @description The subject's claims (dc+sd-jwt: the payload's claims; ldp_vc: the properties of credentialSubject). Where the configuration lists claims, only those and every mandatory one. At most 32768 bytes of JSON, 8 levels deep.
       * @example {
       *       "given_name": "Erika",
       *       "employee_id": "E-1042"
       *     }
       */
      claims: {
        [key: string]: unknown;
      };
      /**
       * @description Ask for a transaction code (OpenID4VCI 1.0 §4.1.1 `tx_code`): `true` for six digits, or its length, input mode and description. The code is answered once, in the create answer.
       * @example true
       */
      txCode?: boolean | components['schemas']['TxCodeRequestDto'];
      /**
       * @description How long the offer stays open, in seconds.
       * @default 600
       * @example 600
       */
      expiresInSeconds: number;
      /**
       * @description Put the offer itself in the link (`credential_offer`) rather than its URI (`credential_offer_uri`).
       * @default false
       * @example false
       */
      byValue: boolean;
      /**
       * @description How the wallet redeems the offer: the pre-authorized code, or `authorization_code`, where the person logs in first (OpenID4VCI 1.0 §5; the offer carries `issuer_state`). An authorization_code offer needs a configuration with `claimsFromLogin`; its `claims` are then what the login does not give (the login's win on a claim both set), and it takes no `txCode`.
       * @default pre-authorized_code
       * @example pre-authorized_code
       * @enum {string}
       */
      grant: 'pre-authorized_code' | 'authorization_code';
      /**
       * @description authorization_code only: the person the offer is for, as the login names them (`sub` or `preferred_username`); another person's login is refused.
       * @example erika.mustermann
       */
      subject?: string;
    };
    CreatedOfferDto: {
      /**
       * Format: uuid
       * @example 0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f
       */
      id: string;
      /**
       * @example offered
       * @enum {string}
       */
      status: 'offered';
      /**
       * @description The Credential Offer object (OpenID4VCI 1.0 §4.1.1).
       * @example {
       *       "credential_issuer": "http://localhost:8080/ctrl/oid4vci/acme",
       *       "credential_configuration_ids": [
       *         "EmployeeBadge_sd_jwt"
       *       ],
       *       "grants": {
       *         "urn:ietf:params:oauth:grant-type:pre-authorized_code": {
       *           "pre-authorized_code": "Wf3nGqvGxJ5oB1m3Zz2q0yQyN3cQ2a9vJ8p4cQk1XbE",
       *           "tx_code": {
       *             "length": 6,
       *             "input_mode": "numeric"
       *           }
       *         }
       *       }
       *     }
       */
      credentialOffer: {
        [key: string]: unknown;
      };
      /**
       * @description The link for the wallet (a QR code or a button): `openid-credential-offer://?credential_offer_uri=…`, or with `byValue` `…?credential_offer=…`.
       * @example openid-credential-offer://?credential_offer_uri=http%3A%2F%2Flocalhost%3A8080%2Fctrl%2Foid4vci%2Facme%2Fcredential-offers%2Fc2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM
       */
      credentialOfferUri: string;
      /**
       * @description The transaction code, when one was asked for: answered this once, to be sent to the user by another channel.
       * @example 493817
       */
      txCode?: string;
      /** @example 2026-11-25T10:10:00.000Z */
      expiresAt: string;
    };
    OfferDto: {
      /**
       * Format: uuid
       * @example 0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f
       */
      id: string;
      /**
       * @description An open offer past `expiresAt` reads as `expired`.
       * @example offered
       * @enum {string}
       */
      status: 'offered' | 'accepted' | 'issued' | 'expired' | 'failed' | 'withdrawn';
      /** @example EmployeeBadge_sd_jwt */
      credentialConfigurationId: string;
      /**
       * @description The format of the configuration as it was offered.
       * @example dc+sd-jwt
       * @enum {string}
       */
      format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
      /**
       * @description mso_mdoc: the mdoc document type offered; null for the other formats.
       * @example null
       */
      doctype: string | null;
      /**
       * @description The credentials issued for the offer.
       * @example []
       */
      credentialIds: string[];
      /** @example true */
      txCodeRequired: boolean;
      /**
       * @example pre-authorized_code
       * @enum {string}
       */
      grant: 'pre-authorized_code' | 'authorization_code';
      /**
       * @description The wallet’s last notification event (`credential_accepted`, …).
       * @example null
       */
      notification: string | null;
      /** @example 2026-11-25T10:10:00.000Z */
      expiresAt: string;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /** @example 2026-11-25T10:00:00.000Z */
      updatedAt: string;
    };
    OfferPageDto: {
      content: components['schemas']['OfferDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    PresentedCertificateChainDto: {
      /**
       * @description The subject of the leaf certificate whose key signed the credential.
       * @example CN=Globex Issuer, O=Globex, C=NL
       */
      leafSubject: string;
      /**
       * @description The subject of the tenant’s trust anchor the chain ended at; null when the tenant has no anchors and any valid chain was accepted.
       * @example CN=Example Issuing CA, O=Example, C=NL
       */
      anchorSubject: string | null;
    };
    PresentationRequestCredentialDto: {
      /**
       * @example dc+sd-jwt
       * @enum {string}
       */
      format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
      /**
       * @description Who issued it (`iss`, or the issuer DID; for an mdoc the subject of its document signer certificate).
       * @example http://localhost:8080/ctrl/oid4vci/globex
       */
      issuer: string;
      /**
       * @description dc+sd-jwt: its type.
       * @example https://globex.example/credentials/alumni
       */
      vct?: string;
      /**
       * @description ldp_vc: its types.
       * @example [
       *       "VerifiableCredential",
       *       "AlumniCredential"
       *     ]
       */
      types?: string[];
      /**
       * @description mso_mdoc: its doctype (ISO/IEC 18013-5).
       * @example org.iso.18013.5.1.mDL
       */
      doctype?: string;
      /**
       * @description RFC 7638 SHA-256 thumbprint of the holder’s key (an mdoc’s device key); null without holder binding.
       * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
       */
      holderKeyThumbprint: string | null;
      /**
       * @example valid
       * @enum {string}
       */
      status: 'valid' | 'revoked' | 'suspended' | 'none';
      /** @description dc+sd-jwt signed by an `x5c` certificate, or an mdoc (its `x5chain` up to an IACA): the chain that vouched for it. */
      certificateChain?: components['schemas']['PresentedCertificateChainDto'];
      /**
       * @description The disclosed claims only (an mdoc’s: the presented elements by namespace); absent once erased (see `claimsErasedAt`).
       * @example {
       *       "given_name": "Alice",
       *       "alumni_of": "Globex Academy"
       *     }
       */
      claims?: {
        [key: string]: unknown;
      };
    };
    CreatePresentationRequestDto: {
      /**
       * @description The DCQL query (OpenID4VP 1.0 §6): formats dc+sd-jwt, ldp_vc, mso_mdoc; `meta.vct_values` (dc+sd-jwt), `meta.type_values` (ldp_vc) or `meta.doctype_value` (mso_mdoc, its claims as `path: [namespace, element]`) required. At most 16384 bytes of JSON, 16 credential queries, 64 claims each.
       * @example {
       *       "credentials": [
       *         {
       *           "id": "alumni",
       *           "format": "dc+sd-jwt",
       *           "meta": {
       *             "vct_values": [
       *               "https://globex.example/credentials/alumni"
       *             ]
       *           },
       *           "claims": [
       *             {
       *               "path": [
       *                 "given_name"
       *               ]
       *             },
       *             {
       *               "path": [
       *                 "alumni_of"
       *               ]
       *             }
       *           ]
       *         }
       *       ]
       *     }
       */
      dcqlQuery: {
        [key: string]: unknown;
      };
      /**
       * @description How the wallet answers (OpenID4VP 1.0 §8.2, §8.3): `direct_post.jwt` encrypts the answer to a key of this request. `dc_api` and `dc_api.jwt` (encrypted, HAIP 1.0): through the browser’s Digital Credentials API (appendix A); the answer is `dcApiRequest`, not a link, and needs `expectedOrigins`.
       * @default direct_post
       * @example direct_post
       * @enum {string}
       */
      responseMode: 'direct_post' | 'direct_post.jwt' | 'dc_api' | 'dc_api.jwt';
      /**
       * @description DC API requests only, and required there: the web origins of the relying party’s pages that call `navigator.credentials.get` (https, or http at localhost, 127.0.0.1 or [::1] for development), as the browser writes them (`location.origin`). A signed request sends them as `expected_origins`; the answer’s origin must be one of them.
       * @example [
       *       "https://shop.example"
       *     ]
       */
      expectedOrigins?: string[];
      /**
       * @description How the wallet knows the verifier (OpenID4VP 1.0 §5.9.3, HAIP 1.0 §5): `x509_hash` (the SHA-256 of the tenant’s leaf certificate) or `x509_san_dns` (a DNS name of the leaf, which must be the host of PUBLIC_BASE_URL), the request object signed ES256 with the chain in `x5c`; `decentralized_identifier` (the tenant’s DID). Default: `x509_hash` when the tenant has an active certificate, else `decentralized_identifier`. An x509 prefix the certificate cannot make is 409 `CLIENT_ID_PREFIX_UNAVAILABLE`.
       * @example x509_hash
       * @enum {string}
       */
      clientIdPrefix?: 'x509_hash' | 'x509_san_dns' | 'decentralized_identifier';
      /**
       * @description `post` offers the wallet `request_uri_method=post` in the link (OpenID4VP 1.0 §5.10); the request object is served to GET either way.
       * @default get
       * @example get
       * @enum {string}
       */
      requestUriMethod: 'get' | 'post';
      /**
       * @description How long the request waits for the answer, in seconds.
       * @default 300
       * @example 300
       */
      expiresInSeconds: number;
      /**
       * @description Only credentials of these issuers (DIDs, or https issuer identifiers of SD-JWT VCs) count. Unset: the tenant’s trusted issuers if it has any, else any issuer whose key resolves.
       * @example [
       *       "http://localhost:8080/ctrl/oid4vci/globex"
       *     ]
       */
      trustedIssuers?: string[];
      /**
       * @description Same-device flows (OpenID4VP 1.0 §8.2): once the answer verifies, the response endpoint tells the wallet to send the person’s browser here, with a fresh `response_code` query parameter whose SHA-256 the request then shows as `responseCodeSha256`. An https URL without a fragment.
       * @example https://shop.example/checkout/verified
       */
      redirectUri?: string;
    };
    DcApiRequestDto: {
      /**
       * @description `openid4vp-v1-signed` when the tenant’s client id is x509 (`x509_hash`, `x509_san_dns`; HAIP 1.0 §5), `openid4vp-v1-unsigned` otherwise.
       * @example openid4vp-v1-signed
       * @enum {string}
       */
      protocol: 'openid4vp-v1-signed' | 'openid4vp-v1-unsigned';
      /**
       * @description Signed: `{request}`, the request object (ES256, `x5c`) with `client_id` and `expected_origins`. Unsigned: `response_type`, `response_mode`, `nonce`, `dcql_query` and `client_metadata` (with the encryption key for dc_api.jwt), no `client_id`.
       * @example {
       *       "request": "eyJhbGciOiJFUzI1NiIsInR5cCI6Im9hdXRoLWF1dGh6LXJlcStqd3QiLCJ4NWMiOlsiTUlJQi4uLiJdfQ.eyJjbGllbnRfaWQiOiJ4NTA5X2hhc2g6R3Y0cWtWenJuNVdrVzZxQnNFWGRiR3M2ZUZyekNNM2IxeVo2VjBCWkpYbyIsImV4cGVjdGVkX29yaWdpbnMiOlsiaHR0cHM6Ly9zaG9wLmV4YW1wbGUiXSwicmVzcG9uc2VfbW9kZSI6ImRjX2FwaS5qd3QifQ.c2lnbmF0dXJlLWJ5LXRoZS10ZW5hbnRzLWVzMjU2LWtleQ"
       *     }
       */
      data: {
        [key: string]: unknown;
      };
    };
    CreatedPresentationRequestDto: {
      /**
       * Format: uuid
       * @example 5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90
       */
      id: string;
      /**
       * @example pending
       * @enum {string}
       */
      status: 'pending';
      /**
       * @example direct_post
       * @enum {string}
       */
      responseMode: 'direct_post' | 'direct_post.jwt' | 'dc_api' | 'dc_api.jwt';
      /**
       * @description The tenant as verifier (OpenID4VP 1.0 §5.9.3), as `clientIdPrefix` asked: `x509_hash:<SHA-256 of the leaf certificate>`, `x509_san_dns:<host>` or `decentralized_identifier:<DID>` (for example `decentralized_identifier:did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK`). A KB-JWT's `aud` must be all of it.
       * @example x509_hash:Gv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo
       */
      clientId: string;
      /**
       * @description Redirect requests: the link for the wallet (a QR code or a button): `openid4vp://?client_id=…&request_uri=…`. Absent for a DC API request.
       * @example openid4vp://?client_id=x509_hash%3AGv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo&request_uri=http%3A%2F%2Flocalhost%3A8080%2Fctrl%2Foid4vp%2Fglobex%2Frequests%2Fc2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM
       */
      authorizationRequestUri?: string;
      /** @description DC API requests: what the relying party’s page passes to `navigator.credentials.get({digital: {requests: [dcApiRequest]}})`. */
      dcApiRequest?: components['schemas']['DcApiRequestDto'];
      /** @example 2026-11-25T10:05:00.000Z */
      expiresAt: string;
    };
    PresentationOutcomeDto: {
      /**
       * @description A check that an answer bound to this request (its holder proof names the request’s nonce and client id) failed, or `too_many_refused_answers` after 10 answers not bound to it were refused (docs/oid4vp.md).
       * @example credential_revoked
       */
      code: string;
      /** @example alumni: the status list says the credential is revoked (INVALID) */
      reason: string;
    };
    PresentationRequestDto: {
      /**
       * Format: uuid
       * @example 5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90
       */
      id: string;
      /**
       * @description A pending request past `expiresAt` reads as `expired`.
       * @example pending
       * @enum {string}
       */
      status: 'pending' | 'verified' | 'failed' | 'expired';
      /**
       * @example direct_post
       * @enum {string}
       */
      responseMode: 'direct_post' | 'direct_post.jwt' | 'dc_api' | 'dc_api.jwt';
      /**
       * @example get
       * @enum {string}
       */
      requestUriMethod: 'get' | 'post';
      /**
       * @example {
       *       "credentials": [
       *         {
       *           "id": "alumni",
       *           "format": "dc+sd-jwt",
       *           "meta": {
       *             "vct_values": [
       *               "https://globex.example/credentials/alumni"
       *             ]
       *           },
       *           "claims": [
       *             {
       *               "path": [
       *                 "given_name"
       *               ]
       *             },
       *             {
       *               "path": [
       *                 "alumni_of"
       *               ]
       *             }
       *           ]
       *         }
       *       ]
       *     }
       */
      dcqlQuery: {
        [key: string]: unknown;
      };
      /** @example null */
      trustedIssuers: string[] | null;
      /**
       * @description Same-device flows: where the wallet sends the person’s browser once verified.
       * @example null
       */
      redirectUri: string | null;
      /**
       * @description Once verified with a `redirectUri`: the SHA-256 (base64url) of the `response_code` appended to it. Whoever arrives there with the code that hashes to this is the browser of the device that answered.
       * @example null
       */
      responseCodeSha256: string | null;
      /**
       * @description The client id the request was made with, prefix included (OpenID4VP 1.0 §5.9.3).
       * @example x509_hash:Gv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo
       */
      clientId: string;
      /**
       * @description DC API requests: the origins its answer may come from; null for redirect requests.
       * @example null
       */
      expectedOrigins: string[] | null;
      /**
       * @description Redirect requests, while pending only.
       * @example openid4vp://?client_id=x509_hash%3AGv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo&request_uri=http%3A%2F%2Flocalhost%3A8080%2Fctrl%2Foid4vp%2Fglobex%2Frequests%2Fc2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM
       */
      authorizationRequestUri?: string;
      /** @description DC API requests, while pending, when one request is read (not in the list): the request for `navigator.credentials.get`, signed anew; absent when the tenant’s certificate no longer stands for the client id. */
      dcApiRequest?: components['schemas']['DcApiRequestDto'];
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /** @example 2026-11-25T10:05:00.000Z */
      expiresAt: string;
      /**
       * @description When it became verified, failed or expired.
       * @example null
       */
      endedAt: string | null;
      /**
       * @description Answers refused as not bound to this request (another nonce or audience, no holder proof, an untrusted issuer, garbage): each leaves it pending; the 10th fails it with `too_many_refused_answers` (docs/oid4vp.md).
       * @example 0
       */
      refusedAnswers: number;
      /** @description When failed. */
      outcome?: components['schemas']['PresentationOutcomeDto'];
      /**
       * @description When verified: per credential query id, what was presented.
       * @example {
       *       "alumni": [
       *         {
       *           "format": "dc+sd-jwt",
       *           "issuer": "http://localhost:8080/ctrl/oid4vci/globex",
       *           "vct": "https://globex.example/credentials/alumni",
       *           "holderKeyThumbprint": "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
       *           "status": "valid",
       *           "claims": {
       *             "given_name": "Alice",
       *             "alumni_of": "Globex Academy"
       *           }
       *         }
       *       ]
       *     }
       */
      presented?: {
        [key: string]: components['schemas']['PresentationRequestCredentialDto'][];
      };
      /**
       * @description When the disclosed claims were erased (docs/oid4vp.md, Retention).
       * @example 2026-11-26T10:01:12.000Z
       */
      claimsErasedAt?: string;
    };
    PresentationRequestPageDto: {
      content: components['schemas']['PresentationRequestDto'][];
      /**
       * @description Page number, from 0.
       * @example 0
       */
      number: number;
      /**
       * @description Page size asked for.
       * @example 20
       */
      size: number;
      /**
       * @description Items matching, on all pages.
       * @example 1
       */
      totalElements: number;
      /**
       * @description Pages of this size.
       * @example 1
       */
      totalPages: number;
    };
    DcApiResponseDto: {
      /**
       * @description The origin of the page that called `navigator.credentials.get` (`location.origin`): one of the request’s `expectedOrigins`. The answer’s key binding must name it as `aud: origin:<origin>` (OpenID4VP 1.0 appendix A.4).
       * @example https://shop.example
       */
      origin: string;
      /**
       * @description The `data` of the DigitalCredential the browser returned, as it is: `{vp_token}` for dc_api, `{response}` (a JWE to the request’s key) for dc_api.jwt, or `{error}` when the wallet declined.
       * @example {
       *       "response": "eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImtpZCI6IlpwM25PcTVMOGMyazFtVmQ0UjdzVHciLCJlcGsiOnsia3R5IjoiRUMiLCJjcnYiOiJQLTI1NiIsIngiOiIuLi4iLCJ5IjoiLi4uIn19..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ"
       *     }
       */
      data: {
        [key: string]: unknown;
      };
    };
    CreateWebhookDto: {
      /**
       * @description Where events are POSTed: https, to a public address (checked now and at every delivery). In local mode: a receiver on this machine (loopback, http allowed), as in the example.
       * @example http://localhost:9000/agent-events
       */
      url: string;
      /**
       * @description The event types to receive; absent or empty: all.
       * @example [
       *       "credential.issued",
       *       "credential.status.changed"
       *     ]
       */
      events?: (
        | 'tenant.created'
        | 'tenant.updated'
        | 'tenant.deleted'
        | 'credential.issued'
        | 'credential.status.changed'
        | 'oid4vci.offer.accepted'
        | 'oid4vci.offer.expired'
        | 'oid4vci.authorization.denied'
        | 'oid4vci.credential.accepted'
        | 'oid4vci.credential.failed'
        | 'oid4vci.credential.deleted'
        | 'presentation.verified'
        | 'presentation.failed'
        | 'certificate.expiring'
        | 'certificate.expired'
        | 'webhook.test'
      )[];
      /**
       * @description A note for people.
       * @example Our CRM
       */
      description?: string;
    };
    CreatedWebhookDto: {
      /**
       * Format: uuid
       * @example 6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f
       */
      id: string;
      /**
       * @description The tenant whose events it receives; null: every tenant (administrators).
       * @example acme
       */
      tenantId: string | null;
      /** @example http://localhost:9000/agent-events */
      url: string;
      /**
       * @description Empty: all.
       * @example [
       *       "credential.issued",
       *       "credential.status.changed"
       *     ]
       */
      events: (
        | 'tenant.created'
        | 'tenant.updated'
        | 'tenant.deleted'
        | 'credential.issued'
        | 'credential.status.changed'
        | 'oid4vci.offer.accepted'
        | 'oid4vci.offer.expired'
        | 'oid4vci.authorization.denied'
        | 'oid4vci.credential.accepted'
        | 'oid4vci.credential.failed'
        | 'oid4vci.credential.deleted'
        | 'presentation.verified'
        | 'presentation.failed'
        | 'certificate.expiring'
        | 'certificate.expired'
        | 'webhook.test'
      )[];
      /** @example Our CRM */
      description: string | null;
      /**
       * @description Disabled subscriptions receive nothing.
       * @example true
       */
      enabled: boolean;
      /**
       * @description Why the service disabled it (410 Gone, or failures in a row).
       * @example null
       */
      disabledReason: string | null;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /** @example 2026-11-25T10:00:00.000Z */
      updatedAt: string;
      /**
       * @description The signing secret (Standard Webhooks `whsec_...`). Shown only in this answer: keep it now.
       * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
       */
      secret: string;
    };
    WebhookDto: {
      /**
       * Format: uuid
       * @example 6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f
       */
      id: string;
      /**
       * @description The tenant whose events it receives; null: every tenant (administrators).
       * @example acme
       */
      tenantId: string | null;
      /** @example http://localhost:9000/agent-events */
      url: string;
      /**
       * @description Empty: all.
       * @example [
       *       "credential.issued",
       *       "credential.status.changed"
       *     ]
       */
      events: (
        | 'tenant.created'
        | 'tenant.updated'
        | 'tenant.deleted'
        | 'credential.issued'
        | 'credential.status.changed'
        | 'oid4vci.offer.accepted'
        | 'oid4vci.offer.expired'
        | 'oid4vci.authorization.denied'
        | 'oid4vci.credential.accepted'
        | 'oid4vci.credential.failed'
        | 'oid4vci.credential.deleted'
        | 'presentation.verified'
        | 'presentation.failed'
        | 'certificate.expiring'
        | 'certificate.expired'
        | 'webhook.test'
      )[];
      /** @example Our CRM */
      description: string | null;
      /**
       * @description Disabled subscriptions receive nothing.
       * @example true
       */
      enabled: boolean;
      /**
       * @description Why the service disabled it (410 Gone, or failures in a row).
       * @example null
       */
      disabledReason: string | null;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /** @example 2026-11-25T10:00:00.000Z */
      updatedAt: string;
    };
    WebhookPageDto: {
      content: components['schemas']['WebhookDto'][];
      /**
       * @description The page number; null on a page by cursor (`after`).
       * @example 0
       */
      number: number | null;
      /** @example 20 */
      size: number;
      /**
       * @description null on a page by cursor (`after`), which counts nothing.
       * @example 1
       */
      totalElements: number | null;
      /**
       * @description null on a page by cursor (`after`).
       * @example 1
       */
      totalPages: number | null;
      /**
       * @description Opaque cursor of the last item: pass it as `after` for the next page; null when none follows.
       * @example WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMDAwMFoiLCJ1cm46dXVpZDoxIl0
       */
      after: string | null;
    };
    UpdateWebhookDto: {
      /**
       * @description Where events are POSTed: https, to a public address (checked now and at every delivery). In local mode: a receiver on this machine (loopback, http allowed), as in the example.
       * @example http://localhost:9000/agent-events
       */
      url?: string;
      /**
       * @description The event types to receive; absent or empty: all.
       * @example [
       *       "credential.issued",
       *       "credential.status.changed"
       *     ]
       */
      events?: (
        | 'tenant.created'
        | 'tenant.updated'
        | 'tenant.deleted'
        | 'credential.issued'
        | 'credential.status.changed'
        | 'oid4vci.offer.accepted'
        | 'oid4vci.offer.expired'
        | 'oid4vci.authorization.denied'
        | 'oid4vci.credential.accepted'
        | 'oid4vci.credential.failed'
        | 'oid4vci.credential.deleted'
        | 'presentation.verified'
        | 'presentation.failed'
        | 'certificate.expiring'
        | 'certificate.expired'
        | 'webhook.test'
      )[];
      /**
       * @description A note for people.
       * @example Our CRM
       */
      description?: string;
      /**
       * @description false pauses deliveries; true resumes them and clears the failure count.
       * @example true
       */
      enabled?: boolean;
    };
    RotatedSecretDto: {
      /**
       * @description The new secret; shown only here.
       * @example whsec_Qm9yZWQgd2l0aCBzZWNyZXRzPyBLZWVwIHRoaXMgb25lLg==
       */
      secret: string;
      /**
       * @description Until then the old secret signs too (a second signature).
       * @example 2026-11-26T10:00:00.000Z
       */
      previousSecretExpiresAt: string;
    };
    TestDeliveryDto: {
      /**
       * @description The queued delivery (its `webhook-id`).
       * @example a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e
       */
      deliveryId: string;
    };
    WebhookAttemptDto: {
      /** @example 1 */
      attempt: number;
      /** @example 2026-11-25T10:00:00.105Z */
      startedAt: string;
      /**
       * @description The receiver’s status; null when no answer came.
       * @example 503
       */
      statusCode: number | null;
      /** @example 41 */
      durationMs: number;
      /**
       * @description Why no answer came: the refused target and why, `timed out` (connecting within 3 s, answering within 10 s) or `connection failed`.
       * @example null
       */
      error: string | null;
      /**
       * @description The first 256 bytes of a plain text or JSON answer; null for any other answer, or none.
       * @example Service Unavailable
       */
      responseExcerpt: string | null;
      /**
       * @description The media type of the answer whose excerpt is kept; null when none is.
       * @example text/plain
       */
      responseContentType: string | null;
    };
    WebhookDeliveryDto: {
      /**
       * @description The `webhook-id` header, the same on every attempt.
       * @example a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e
       */
      id: string;
      /** @example credential.issued */
      eventType: string;
      /**
       * @example delivered
       * @enum {string}
       */
      state: 'pending' | 'delivered' | 'failed';
      /** @example 2 */
      attempts: number;
      /** @example 2026-11-25T10:00:00.000Z */
      createdAt: string;
      /**
       * @description When pending: the next try.
       * @example null
       */
      nextAttemptAt: string | null;
      /** @example 2026-11-25T10:00:05.412Z */
      finishedAt: string | null;
      log: components['schemas']['WebhookAttemptDto'][];
    };
    WebhookDeliveryPageDto: {
      content: components['schemas']['WebhookDeliveryDto'][];
      /**
       * @description The page number; null on a page by cursor (`after`).
       * @example 0
       */
      number: number | null;
      /** @example 20 */
      size: number;
      /**
       * @description null on a page by cursor (`after`), which counts nothing.
       * @example 1
       */
      totalElements: number | null;
      /**
       * @description null on a page by cursor (`after`).
       * @example 1
       */
      totalPages: number | null;
      /**
       * @description Opaque cursor of the last item: pass it as `after` for the next page; null when none follows.
       * @example WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMDAwMFoiLCJ1cm46dXVpZDoxIl0
       */
      after: string | null;
    };
    SetLoginProviderDto: {
      /**
       * @description The OpenID provider’s issuer identifier, exactly as its discovery document (`{issuer}/.well-known/openid-configuration`, fetched when saving) and its ID tokens name it. https, no query or fragment.
       * @example https://login.example.com/realms/people
       */
      issuer: string;
      /**
       * @description The client registered at the provider for this tenant.
       * @example acme-issuance
       */
      clientId: string;
      /**
       * @description The client’s secret: stored sealed, sent only to the provider’s token endpoint, never answered again.
       * @example a-long-random-secret
       */
      clientSecret: string;
      /**
       * @description The scopes asked for: `openid` among them. Default `openid profile email`.
       * @example [
       *       "openid",
       *       "profile",
       *       "email"
       *     ]
       */
      scopes?: string[];
    };
    LoginProviderDto: {
      /** @example https://login.example.com/realms/people */
      issuer: string;
      /** @example acme-issuance */
      clientId: string;
      /**
       * @example [
       *       "openid",
       *       "profile",
       *       "email"
       *     ]
       */
      scopes: string[];
      /**
       * @description Where the provider sends the person back: register it with the client. The same for every provider of the tenant.
       * @example https://agent.example.com/ctrl/oid4vci/acme/login/callback
       */
      redirectUri: string;
      /**
       * @description True: the tenant has none configured, and uses the bundled realm’s client `agent-issuance-login`.
       * @example false
       */
      default: boolean;
      /**
       * @description When this provider was set; null for the default.
       * @example 2026-11-29T09:00:00.000Z
       */
      createdAt: string | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  createTenant: {
    parameters: {
      query?: {
        /** @description Tenant id: 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit. Case-sensitive, immutable. */
        id?: string;
        /** @description Human-readable name, 1-200 characters after trimming, no control characters. */
        label?: string;
        /** @description Logo or picture of the tenant: an http(s) URL of at most 2048 characters. On update, null or an empty value removes it. */
        imageUrl?: string | null;
      };
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description The fields as a JSON object, instead of (or agreeing with) the query parameters. */
    requestBody?: {
      content: {
        'application/json': components['schemas']['TenantFieldsDto'];
      };
    };
    responses: {
      /** @description The new tenant, with its DID. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "acme",
           *       "label": "ACME Corp",
           *       "imageUrl": "https://acme.example/logo.png",
           *       "did": "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *       "createdAt": "2025-01-31T09:30:00.000Z",
           *       "updatedAt": "2025-02-01T16:05:12.345Z"
           *     }
           */
          'application/json': components['schemas']['TenantDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `QUERY_BODY_MISMATCH`: Query and body disagree
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TENANT_ALREADY_EXISTS`: Tenant already exists
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  updateTenant: {
    parameters: {
      query?: {
        /** @description Human-readable name, 1-200 characters after trimming, no control characters. */
        label?: string;
        /** @description Logo or picture of the tenant: an http(s) URL of at most 2048 characters. On update, null or an empty value removes it. */
        imageUrl?: string | null;
      };
      header?: never;
      path: {
        /** @description Tenant id: 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit. */
        id: string;
      };
      cookie?: never;
    };
    /** @description The changes as a JSON object, instead of (or agreeing with) the query parameters. */
    requestBody?: {
      content: {
        'application/json': components['schemas']['TenantUpdateFieldsDto'];
      };
    };
    responses: {
      /** @description The tenant as changed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "acme",
           *       "label": "ACME Corporation",
           *       "imageUrl": "https://acme.example/logo.png",
           *       "did": "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *       "createdAt": "2025-01-31T09:30:00.000Z",
           *       "updatedAt": "2025-02-01T16:05:12.345Z"
           *     }
           */
          'application/json': components['schemas']['TenantDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `QUERY_BODY_MISMATCH`: Query and body disagree
       *     - `NOTHING_TO_UPDATE`: Nothing to update
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Tenant id: 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted, with its keys. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listTenants: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort field and direction; the id breaks ties. Direction defaults to asc. */
        sort?:
          | 'id'
          | 'id,asc'
          | 'id,desc'
          | 'label'
          | 'label,asc'
          | 'label,desc'
          | 'createdAt'
          | 'createdAt,asc'
          | 'createdAt,desc'
          | 'updatedAt'
          | 'updatedAt,asc'
          | 'updatedAt,desc';
        /** @description Matches id or label, case-insensitive, anywhere in the text. */
        q?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of tenants (only its own for an agent-user). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "acme",
           *           "label": "ACME Corp",
           *           "imageUrl": "https://acme.example/logo.png",
           *           "did": "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *           "createdAt": "2025-01-31T09:30:00.000Z",
           *           "updatedAt": "2025-02-01T16:05:12.345Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['TenantPageDto'];
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Tenant id: 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The tenant. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "acme",
           *       "label": "ACME Corp",
           *       "imageUrl": "https://acme.example/logo.png",
           *       "did": "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *       "createdAt": "2025-01-31T09:30:00.000Z",
           *       "updatedAt": "2025-02-01T16:05:12.345Z"
           *     }
           */
          'application/json': components['schemas']['TenantDto'];
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getDid: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The DID. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *       "public": true,
           *       "verkey": "4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS",
           *       "method": "key",
           *       "keyType": "ed25519",
           *       "publicKeyMultibase": "z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
           *       "createdAt": "2025-01-31T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['DidDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getDidDocument: {
    parameters: {
      query?: {
        /** @description `multikey`: the did:key specification's current form (one `Multikey` verification method, context `https://w3id.org/security/multikey/v1`, no key agreement key). `ed25519-2020` (the default): Ed25519VerificationKey2020 with an X25519KeyAgreementKey2020 key agreement key. */
        format?: 'ed25519-2020' | 'multikey';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The DID document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/did+ld+json': components['schemas']['DidDocumentDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listCertificates: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of chains. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "7c1e4b2a-9d3f-4e8a-b6c5-1f0e2d3c4b5a",
           *           "status": "active",
           *           "source": "authority",
           *           "purpose": "x5c",
           *           "subject": "CN=acme",
           *           "dnsNames": [
           *             "localhost"
           *           ],
           *           "uris": [
           *             "http://localhost:8080/ctrl/oid4vci/acme"
           *           ],
           *           "issuer": "CN=Agent service development CA (localhost:8080)",
           *           "serialNumber": "3f6c2a9d8e1b4c7a9e0d2f4b6a8c1e3d",
           *           "notBefore": "2026-11-25T10:00:00.000Z",
           *           "notAfter": "2027-11-25T10:00:00.000Z",
           *           "x5c": [
           *             "MIIB5TCCAYygAwIBAgIQP2wqnY4bTHqeDS9LaowePTAKBggqhkjOPQQDAjA4MTYwNAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkwHhcNMjYxMTI1MTAwMDAwWhcNMjcxMTI1MTAwMDAwWjAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q44vx1S93E1X8EnTIdCBV7DaJ0bfuTqOBoDCBnTAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDA9BgNVHREENjA0gglsb2NhbGhvc3SGJ2h0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9jdHJsL29pZDR2Y2kvYWNtZTAdBgNVHQ4EFgQUdkWK8mh+DGiS7/s08j21dbepcXwwHwYDVR0jBBgwFoAUhVIemnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgW/3Qjbvs+Rz+Cyc9JJGPrt7ISke3KuB84ZjooT55TjYCIAGY4OA7V19Fugl8hcH4iL3e616WKxeYBgeh4lqMX8hZ"
           *           ],
           *           "createdAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['CertificatePageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createCertificateSigningRequest: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateCsrDto'];
      };
    };
    responses: {
      /** @description The request. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "csr": "-----BEGIN CERTIFICATE REQUEST-----\nMIIBGjCBwQIBADAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0D\nAQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q\n44vx1S93E1X8EnTIdCBV7DaJ0bfuTqBQME4GCSqGSIb3DQEJDjFBMD8wPQYDVR0R\nBDYwNIIJbG9jYWxob3N0hidodHRwOi8vbG9jYWxob3N0OjgwODAvY3RybC9vaWQ0\ndmNpL2FjbWUwCgYIKoZIzj0EAwIDSAAwRQIgOOtbv3QPPTt+tzE5VoN6Awg0Mx/C\ncL2XexhS+joPE6oCIQCjs064170PzRhsfTm7apmB8kwSRz50mNF3Q6h8kKwHOQ==\n-----END CERTIFICATE REQUEST-----"
           *     }
           */
          'application/json': components['schemas']['CsrDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  importCertificate: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ImportCertificateDto'];
      };
    };
    responses: {
      /** @description The chain, now active. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "7c1e4b2a-9d3f-4e8a-b6c5-1f0e2d3c4b5a",
           *       "status": "active",
           *       "source": "imported",
           *       "purpose": "x5c",
           *       "subject": "CN=acme",
           *       "dnsNames": [
           *         "localhost"
           *       ],
           *       "uris": [
           *         "http://localhost:8080/ctrl/oid4vci/acme"
           *       ],
           *       "issuer": "CN=Agent service development CA (localhost:8080)",
           *       "serialNumber": "3f6c2a9d8e1b4c7a9e0d2f4b6a8c1e3d",
           *       "notBefore": "2026-11-25T10:00:00.000Z",
           *       "notAfter": "2027-11-25T10:00:00.000Z",
           *       "x5c": [
           *         "MIIB5TCCAYygAwIBAgIQP2wqnY4bTHqeDS9LaowePTAKBggqhkjOPQQDAjA4MTYwNAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkwHhcNMjYxMTI1MTAwMDAwWhcNMjcxMTI1MTAwMDAwWjAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q44vx1S93E1X8EnTIdCBV7DaJ0bfuTqOBoDCBnTAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDA9BgNVHREENjA0gglsb2NhbGhvc3SGJ2h0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9jdHJsL29pZDR2Y2kvYWNtZTAdBgNVHQ4EFgQUdkWK8mh+DGiS7/s08j21dbepcXwwHwYDVR0jBBgwFoAUhVIemnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgW/3Qjbvs+Rz+Cyc9JJGPrt7ISke3KuB84ZjooT55TjYCIAGY4OA7V19Fugl8hcH4iL3e616WKxeYBgeh4lqMX8hZ"
           *       ],
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CertificateDto'];
        };
      };
      /**
       * @description - `CERTIFICATE_CHAIN_MALFORMED`: Certificate chain malformed
       *     - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CERTIFICATE_KEY_MISMATCH`: Certificate for another key
       *     - `CERTIFICATE_SELF_SIGNED`: Certificate self-signed
       *     - `CERTIFICATE_NOT_VALID_NOW`: Certificate not valid now
       *     - `CERTIFICATE_CHAIN_BROKEN`: Certificate chain broken
       *     - `CERTIFICATE_PROFILE_UNSUITABLE`: Certificate profile unsuitable
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  issueCertificate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['IssueCertificateDto'];
      };
    };
    responses: {
      /** @description The chain, now active. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "7c1e4b2a-9d3f-4e8a-b6c5-1f0e2d3c4b5a",
           *       "status": "active",
           *       "source": "authority",
           *       "purpose": "x5c",
           *       "subject": "CN=acme",
           *       "dnsNames": [
           *         "localhost"
           *       ],
           *       "uris": [
           *         "http://localhost:8080/ctrl/oid4vci/acme"
           *       ],
           *       "issuer": "CN=Agent service development CA (localhost:8080)",
           *       "serialNumber": "3f6c2a9d8e1b4c7a9e0d2f4b6a8c1e3d",
           *       "notBefore": "2026-11-25T10:00:00.000Z",
           *       "notAfter": "2027-11-25T10:00:00.000Z",
           *       "x5c": [
           *         "MIIB5TCCAYygAwIBAgIQP2wqnY4bTHqeDS9LaowePTAKBggqhkjOPQQDAjA4MTYwNAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkwHhcNMjYxMTI1MTAwMDAwWhcNMjcxMTI1MTAwMDAwWjAPMQ0wCwYDVQQDEwRhY21lMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE59qmAWjRrN4xYiNZNAdMhzxiWoMBSjmXGfGa06fOLA6B9/Kgf1ofOR4q44vx1S93E1X8EnTIdCBV7DaJ0bfuTqOBoDCBnTAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDA9BgNVHREENjA0gglsb2NhbGhvc3SGJ2h0dHA6Ly9sb2NhbGhvc3Q6ODA4MC9jdHJsL29pZDR2Y2kvYWNtZTAdBgNVHQ4EFgQUdkWK8mh+DGiS7/s08j21dbepcXwwHwYDVR0jBBgwFoAUhVIemnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgW/3Qjbvs+Rz+Cyc9JJGPrt7ISke3KuB84ZjooT55TjYCIAGY4OA7V19Fugl8hcH4iL3e616WKxeYBgeh4lqMX8hZ"
           *       ],
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CertificateDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `CERTIFICATE_AUTHORITY_NOT_CONFIGURED`: Certificate authority not configured */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCertificateAuthority: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The root (PEM). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "certificate": "-----BEGIN CERTIFICATE-----\nMIIBsjCCAVmgAwIBAgIQXRoMPpt/SiyObRsKn459bDAKBggqhkjOPQQDAjA4MTYw\nNAYDVQQDEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6\nODA4MCkwHhcNMjYxMTI1MDk1OTAwWhcNMzYxMTIzMTAwMDAwWjA4MTYwNAYDVQQD\nEy1BZ2VudCBzZXJ2aWNlIGRldmVsb3BtZW50IENBIChsb2NhbGhvc3Q6ODA4MCkw\nWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASd09KsjA/18ZfrtsT9wg+xHIlMOjpa\nkncJVJYEWIO53pOGJ5m9IPI2zg9CPHlhqYtOf3UxYOOQ3oEt9jDojcXvo0UwQzAS\nBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQUhVIe\nmnkWYqCdbA4N4RUERFFpKM4wCgYIKoZIzj0EAwIDRwAwRAIgbsty4uBonmu7BfHd\n+7Ho1BeRBFaa5SRIGacWIHG/7u0CIDVEZ0FEqdV9AsMAMsJ8Kv6JKyr4FGamxfav\nF68YZKL0\n-----END CERTIFICATE-----"
           *     }
           */
          'application/json': components['schemas']['AuthorityCertificateDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `CERTIFICATE_AUTHORITY_NOT_CONFIGURED`: Certificate authority not configured */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCertificateAuthorityCrl: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The authority’s id, as the document signer’s CRL distribution point names it. */
        authorityId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The CRL. */
      200: {
        headers: {
          /** @description `public, max-age=3600` */
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /** @example MIH5MIGgAgEBMAoGCCqGSM49BAMCMDgxNjA0BgNVBAMTLUFnZW50IHNlcnZpY2U... */
          'application/pkix-crl': string;
        };
      };
      /** @description - `CERTIFICATE_AUTHORITY_NOT_FOUND`: Certificate authority not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listCredentials: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages). */
        after?: string;
        /** @description Only credentials with this type. */
        type?: string;
        /** @description Only credentials in this state (revoked wins over suspended). */
        status?: 'active' | 'suspended' | 'revoked';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of issuance records. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
           *           "types": [
           *             "VerifiableCredential",
           *             "AlumniCredential"
           *           ],
           *           "cryptosuite": "eddsa-rdfc-2022",
           *           "format": "ldp_vc",
           *           "doctype": null,
           *           "offerId": null,
           *           "configurationId": null,
           *           "issuedAt": "2026-11-25T10:00:00.000Z",
           *           "state": "active",
           *           "status": [
           *             {
           *               "statusPurpose": "revocation",
           *               "statusListCredential": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10",
           *               "statusListIndex": "94567",
           *               "set": false
           *             }
           *           ]
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1,
           *       "after": null
           *     }
           */
          'application/json': components['schemas']['IssuedCredentialPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCredential: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The credential id (URL-encoded). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
           *       "types": [
           *         "VerifiableCredential",
           *         "AlumniCredential"
           *       ],
           *       "cryptosuite": "eddsa-rdfc-2022",
           *       "format": "ldp_vc",
           *       "doctype": null,
           *       "offerId": null,
           *       "configurationId": null,
           *       "issuedAt": "2026-11-25T10:00:00.000Z",
           *       "state": "active",
           *       "status": [
           *         {
           *           "statusPurpose": "revocation",
           *           "statusListCredential": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10",
           *           "statusListIndex": "94567",
           *           "set": false
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['IssuedCredentialRecordDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_NOT_FOUND`: Credential not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  issueCredential: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IssueCredentialDto'];
      };
    };
    responses: {
      /** @description The signed credential. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "verifiableCredential": {
           *         "@context": [
           *           "https://www.w3.org/ns/credentials/v2",
           *           "https://www.w3.org/ns/credentials/examples/v2"
           *         ],
           *         "type": [
           *           "VerifiableCredential",
           *           "AlumniCredential"
           *         ],
           *         "name": "Alumni Credential",
           *         "validFrom": "2026-01-01T00:00:00Z",
           *         "credentialSubject": {
           *           "id": "did:example:abcdefgh",
           *           "alumniOf": "The School of Examples"
           *         },
           *         "id": "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
           *         "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *         "credentialStatus": {
           *           "id": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10#94567",
           *           "type": "BitstringStatusListEntry",
           *           "statusPurpose": "revocation",
           *           "statusListIndex": "94567",
           *           "statusListCredential": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10"
           *         },
           *         "proof": {
           *           "type": "DataIntegrityProof",
           *           "created": "2026-11-25T10:00:00Z",
           *           "verificationMethod": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *           "cryptosuite": "eddsa-rdfc-2022",
           *           "proofPurpose": "assertionMethod",
           *           "proofValue": "z2YwC8z3ap7yx1nZYCg4L3j3ApHsF8kgPdSb5xoS1VR7vPG3F561B52hYnQF9iseabecm3ijx4K1FBTQsCZahKZme"
           *         }
           *       }
           *     }
           */
          'application/json': components['schemas']['IssuedCredentialDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `CREDENTIAL_INVALID`: Credential invalid
       *     - `JSONLD_CONTEXT_UNKNOWN`: JSON-LD context unknown
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  updateCredentialStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateStatusDto'];
      };
    };
    responses: {
      /** @description The status is set. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_NOT_FOUND`: Credential not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  verifyCredential: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['VerifyCredentialDto'];
      };
    };
    responses: {
      /** @description Every check passed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "verified": true,
           *       "checks": [
           *         "proof",
           *         "issuer",
           *         "validity",
           *         "status"
           *       ],
           *       "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *       "proofs": [
           *         {
           *           "type": "DataIntegrityProof",
           *           "created": "2026-11-25T10:00:00Z",
           *           "verificationMethod": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *           "cryptosuite": "eddsa-rdfc-2022",
           *           "proofPurpose": "assertionMethod"
           *         }
           *       ],
           *       "warnings": []
           *     }
           */
          'application/json': components['schemas']['VerificationDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `CREDENTIAL_INVALID`: Credential invalid
       *     - `JSONLD_CONTEXT_UNKNOWN`: JSON-LD context unknown
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `CREDENTIAL_NOT_VERIFIED`: Credential not verified */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  verifyPresentation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['VerifyPresentationDto'];
      };
    };
    responses: {
      /** @description Every check passed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "verified": true,
           *       "checks": [
           *         "proof",
           *         "holder",
           *         "challenge",
           *         "domain",
           *         "credential"
           *       ],
           *       "proofs": [
           *         {
           *           "type": "DataIntegrityProof",
           *           "proofPurpose": "authentication"
           *         }
           *       ],
           *       "credentials": [
           *         {
           *           "id": "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
           *           "proofs": [
           *             {
           *               "type": "DataIntegrityProof"
           *             }
           *           ]
           *         }
           *       ],
           *       "warnings": []
           *     }
           */
          'application/json': components['schemas']['PresentationVerificationDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `CREDENTIAL_INVALID`: Credential invalid
       *     - `JSONLD_CONTEXT_UNKNOWN`: JSON-LD context unknown
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `CREDENTIAL_NOT_VERIFIED`: Credential not verified */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getStatusList: {
    parameters: {
      query?: never;
      header?: {
        /** @description An ETag of this list. */
        'If-None-Match'?: string;
      };
      path: {
        /** @description The tenant that issued the list. */
        tenantId: string;
        /** @description The list, a UUID. */
        listId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The list. */
      200: {
        headers: {
          /** @description The list version */
          ETag?: string;
          /** @description `public, max-age=10` */
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "@context": [
           *         "https://www.w3.org/ns/credentials/v2"
           *       ],
           *       "id": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10",
           *       "type": [
           *         "VerifiableCredential",
           *         "BitstringStatusListCredential"
           *       ],
           *       "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *       "credentialSubject": {
           *         "id": "http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10#list",
           *         "type": "BitstringStatusList",
           *         "statusPurpose": "revocation",
           *         "encodedList": "uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA"
           *       }
           *     }
           */
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Not modified since the ETag given. */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `STATUS_LIST_NOT_FOUND`: Status list not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getStatusListToken: {
    parameters: {
      query?: never;
      header?: {
        /** @description An ETag of this token. */
        'If-None-Match'?: string;
      };
      path: {
        /** @description The tenant that issued the list. */
        tenantId: string;
        /** @description The list, a UUID. */
        listId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Status List Token. */
      200: {
        headers: {
          /** @description The list version */
          ETag?: string;
          /** @description `public, max-age=10` */
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /** @example eyJhbGciOiJFUzI1NiIsInR5cCI6InN0YXR1c2xpc3Qrand0Iiwia2lkIjoiLi4uIn0.eyJzdWIiOiIuLi4ifQ.c2ln */
          'application/statuslist+jwt': string;
        };
      };
      /** @description Not modified since the ETag given. */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `STATUS_LIST_NOT_FOUND`: Status list not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  publishStatusList: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The tenant that issued the list. */
        tenantId: string;
        /** @description The list, a UUID. */
        listId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The list is published. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `STATUS_LIST_NOT_FOUND`: Status list not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getJwtVcIssuerMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The tenant whose issuer this is. */
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metadata. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "issuer": "http://localhost:8080/ctrl/oid4vci/acme",
           *       "jwks": {
           *         "keys": [
           *           {
           *             "kty": "EC",
           *             "crv": "P-256",
           *             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
           *             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
           *             "kid": "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
           *             "alg": "ES256",
           *             "use": "sig"
           *           }
           *         ]
           *       }
           *     }
           */
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createTrustedIssuer: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateTrustedIssuerDto'];
      };
    };
    responses: {
      /** @description The entry. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a",
           *       "tenantId": "acme",
           *       "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *       "description": "The School of Examples",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['TrustedIssuerDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUSTED_ISSUER_ALREADY_EXISTS`: Trusted issuer already exists
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUSTED_ISSUERS_LIMIT_REACHED`: Trusted issuers limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listTrustedIssuers: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort field and direction; the id breaks ties. Direction defaults to asc. */
        sort?:
          | 'issuer'
          | 'issuer,asc'
          | 'issuer,desc'
          | 'createdAt'
          | 'createdAt,asc'
          | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of entries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a",
           *           "tenantId": "acme",
           *           "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *           "description": "The School of Examples",
           *           "createdAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['TrustedIssuerPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getTrustedIssuer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The entry id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The entry. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a",
           *       "tenantId": "acme",
           *       "issuer": "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
           *       "description": "The School of Examples",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['TrustedIssuerDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUSTED_ISSUER_NOT_FOUND`: Trusted issuer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteTrustedIssuer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The entry id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUSTED_ISSUER_NOT_FOUND`: Trusted issuer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createTrustAnchor: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateTrustAnchorDto'];
      };
    };
    responses: {
      /** @description The anchor. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d",
           *       "tenantId": "acme",
           *       "label": "The Example issuing CA",
           *       "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *       "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *       "notBefore": "2026-01-01T00:00:00.000Z",
           *       "notAfter": "2036-01-01T00:00:00.000Z",
           *       "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *       "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['TrustAnchorDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUST_ANCHOR_ALREADY_EXISTS`: Trust anchor already exists
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUST_ANCHORS_LIMIT_REACHED`: Trust anchors limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listTrustAnchors: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort field and direction; the id breaks ties. Direction defaults to asc. */
        sort?:
          | 'subject'
          | 'subject,asc'
          | 'subject,desc'
          | 'notAfter'
          | 'notAfter,asc'
          | 'notAfter,desc'
          | 'createdAt'
          | 'createdAt,asc'
          | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of anchors. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d",
           *           "tenantId": "acme",
           *           "label": "The Example issuing CA",
           *           "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *           "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *           "notBefore": "2026-01-01T00:00:00.000Z",
           *           "notAfter": "2036-01-01T00:00:00.000Z",
           *           "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *           "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *           "createdAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['TrustAnchorPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getTrustAnchor: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The anchor id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The anchor. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d",
           *       "tenantId": "acme",
           *       "label": "The Example issuing CA",
           *       "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *       "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *       "notBefore": "2026-01-01T00:00:00.000Z",
           *       "notAfter": "2036-01-01T00:00:00.000Z",
           *       "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *       "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['TrustAnchorDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUST_ANCHOR_NOT_FOUND`: Trust anchor not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteTrustAnchor: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The anchor id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `TRUST_ANCHOR_NOT_FOUND`: Trust anchor not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createWalletProvider: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWalletProviderDto'];
      };
    };
    responses: {
      /** @description The wallet provider. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b",
           *       "tenantId": "acme",
           *       "label": "Example Wallet Provider",
           *       "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *       "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *       "notBefore": "2026-01-01T00:00:00.000Z",
           *       "notAfter": "2036-01-01T00:00:00.000Z",
           *       "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *       "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WalletProviderDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WALLET_PROVIDER_ALREADY_EXISTS`: Wallet provider already exists
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WALLET_PROVIDERS_LIMIT_REACHED`: Wallet providers limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listWalletProviders: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort field and direction; the id breaks ties. Direction defaults to asc. */
        sort?:
          | 'subject'
          | 'subject,asc'
          | 'subject,desc'
          | 'notAfter'
          | 'notAfter,asc'
          | 'notAfter,desc'
          | 'createdAt'
          | 'createdAt,asc'
          | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of wallet providers. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b",
           *           "tenantId": "acme",
           *           "label": "Example Wallet Provider",
           *           "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *           "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *           "notBefore": "2026-01-01T00:00:00.000Z",
           *           "notAfter": "2036-01-01T00:00:00.000Z",
           *           "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *           "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *           "createdAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['WalletProviderPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getWalletAttestationPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The setting in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "walletAttestation": "required",
           *       "explicit": false
           *     }
           */
          'application/json': components['schemas']['WalletAttestationPolicyDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  setWalletAttestationPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetWalletAttestationPolicyDto'];
      };
    };
    responses: {
      /** @description The setting in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "walletAttestation": "optional",
           *       "explicit": true
           *     }
           */
          'application/json': components['schemas']['WalletAttestationPolicyDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getWalletProvider: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The wallet provider id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The wallet provider. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b",
           *       "tenantId": "acme",
           *       "label": "Example Wallet Provider",
           *       "subject": "CN=Example Issuing CA, O=Example, C=NL",
           *       "issuer": "CN=Example Issuing CA, O=Example, C=NL",
           *       "notBefore": "2026-01-01T00:00:00.000Z",
           *       "notAfter": "2036-01-01T00:00:00.000Z",
           *       "subjectKeyIdentifier": "QmT6SiUIpc44ijOt7Zl7-UMaVzk",
           *       "certificate": "-----BEGIN CERTIFICATE-----\nMIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt\ncGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X\nDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs\nZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG\nByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77\n2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud\nEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil\nzjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo\nsf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA\nK3B0\n-----END CERTIFICATE-----\n",
           *       "createdAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WalletProviderDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WALLET_PROVIDER_NOT_FOUND`: Wallet provider not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteWalletProvider: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The wallet provider id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WALLET_PROVIDER_NOT_FOUND`: Wallet provider not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createCredentialConfiguration: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateCredentialConfigurationDto'];
      };
    };
    responses: {
      /** @description The configuration. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "EmployeeBadge_sd_jwt",
           *       "tenantId": "acme",
           *       "format": "dc+sd-jwt",
           *       "vct": "https://acme.example/credentials/employee-badge",
           *       "doctype": null,
           *       "credentialDefinition": null,
           *       "claims": [
           *         {
           *           "path": [
           *             "given_name"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Given name",
           *               "locale": "en"
           *             }
           *           ]
           *         },
           *         {
           *           "path": [
           *             "employee_id"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Employee id",
           *               "locale": "en"
           *             }
           *           ]
           *         }
           *       ],
           *       "display": [
           *         {
           *           "name": "Employee badge",
           *           "locale": "en",
           *           "logo": {
           *             "uri": "https://acme.example/badge.png",
           *             "alt_text": "The ACME badge"
           *           },
           *           "description": "Proves employment at ACME.",
           *           "background_color": "#12107c",
           *           "text_color": "#ffffff"
           *         }
           *       ],
           *       "selectivelyDisclosable": [
           *         [
           *           "given_name"
           *         ],
           *         [
           *           "employee_id"
           *         ]
           *       ],
           *       "expiresInSeconds": 31536000,
           *       "revocable": true,
           *       "signingAlgorithm": "ES256",
           *       "cryptosuite": null,
           *       "claimsFromLogin": {
           *         "given_name": "given_name",
           *         "employee_id": "preferred_username"
           *       },
           *       "keyAttestationsRequired": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CredentialConfigurationDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATION_ALREADY_EXISTS`: Credential configuration already exists
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED`: Credential configurations limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listCredentialConfigurations: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort field and direction; the id breaks ties. Direction defaults to asc. */
        sort?: 'id' | 'id,asc' | 'id,desc' | 'createdAt' | 'createdAt,asc' | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of configurations. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "EmployeeBadge_sd_jwt",
           *           "tenantId": "acme",
           *           "format": "dc+sd-jwt",
           *           "vct": "https://acme.example/credentials/employee-badge",
           *           "doctype": null,
           *           "credentialDefinition": null,
           *           "claims": [
           *             {
           *               "path": [
           *                 "given_name"
           *               ],
           *               "mandatory": true,
           *               "display": [
           *                 {
           *                   "name": "Given name",
           *                   "locale": "en"
           *                 }
           *               ]
           *             },
           *             {
           *               "path": [
           *                 "employee_id"
           *               ],
           *               "mandatory": true,
           *               "display": [
           *                 {
           *                   "name": "Employee id",
           *                   "locale": "en"
           *                 }
           *               ]
           *             }
           *           ],
           *           "display": [
           *             {
           *               "name": "Employee badge",
           *               "locale": "en",
           *               "logo": {
           *                 "uri": "https://acme.example/badge.png",
           *                 "alt_text": "The ACME badge"
           *               },
           *               "description": "Proves employment at ACME.",
           *               "background_color": "#12107c",
           *               "text_color": "#ffffff"
           *             }
           *           ],
           *           "selectivelyDisclosable": [
           *             [
           *               "given_name"
           *             ],
           *             [
           *               "employee_id"
           *             ]
           *           ],
           *           "expiresInSeconds": 31536000,
           *           "revocable": true,
           *           "signingAlgorithm": "ES256",
           *           "cryptosuite": null,
           *           "claimsFromLogin": {
           *             "given_name": "given_name",
           *             "employee_id": "preferred_username"
           *           },
           *           "keyAttestationsRequired": null,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "updatedAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['CredentialConfigurationPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCredentialConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The credential configuration id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The configuration. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "EmployeeBadge_sd_jwt",
           *       "tenantId": "acme",
           *       "format": "dc+sd-jwt",
           *       "vct": "https://acme.example/credentials/employee-badge",
           *       "doctype": null,
           *       "credentialDefinition": null,
           *       "claims": [
           *         {
           *           "path": [
           *             "given_name"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Given name",
           *               "locale": "en"
           *             }
           *           ]
           *         },
           *         {
           *           "path": [
           *             "employee_id"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Employee id",
           *               "locale": "en"
           *             }
           *           ]
           *         }
           *       ],
           *       "display": [
           *         {
           *           "name": "Employee badge",
           *           "locale": "en",
           *           "logo": {
           *             "uri": "https://acme.example/badge.png",
           *             "alt_text": "The ACME badge"
           *           },
           *           "description": "Proves employment at ACME.",
           *           "background_color": "#12107c",
           *           "text_color": "#ffffff"
           *         }
           *       ],
           *       "selectivelyDisclosable": [
           *         [
           *           "given_name"
           *         ],
           *         [
           *           "employee_id"
           *         ]
           *       ],
           *       "expiresInSeconds": 31536000,
           *       "revocable": true,
           *       "signingAlgorithm": "ES256",
           *       "cryptosuite": null,
           *       "claimsFromLogin": {
           *         "given_name": "given_name",
           *         "employee_id": "preferred_username"
           *       },
           *       "keyAttestationsRequired": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CredentialConfigurationDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATION_NOT_FOUND`: Credential configuration not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  updateCredentialConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The credential configuration id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CredentialConfigurationBodyDto'];
      };
    };
    responses: {
      /** @description The configuration as it is now. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "EmployeeBadge_sd_jwt",
           *       "tenantId": "acme",
           *       "format": "dc+sd-jwt",
           *       "vct": "https://acme.example/credentials/employee-badge",
           *       "doctype": null,
           *       "credentialDefinition": null,
           *       "claims": [
           *         {
           *           "path": [
           *             "given_name"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Given name",
           *               "locale": "en"
           *             }
           *           ]
           *         },
           *         {
           *           "path": [
           *             "employee_id"
           *           ],
           *           "mandatory": true,
           *           "display": [
           *             {
           *               "name": "Employee id",
           *               "locale": "en"
           *             }
           *           ]
           *         }
           *       ],
           *       "display": [
           *         {
           *           "name": "Employee badge",
           *           "locale": "en",
           *           "logo": {
           *             "uri": "https://acme.example/badge.png",
           *             "alt_text": "The ACME badge"
           *           },
           *           "description": "Proves employment at ACME.",
           *           "background_color": "#12107c",
           *           "text_color": "#ffffff"
           *         }
           *       ],
           *       "selectivelyDisclosable": [
           *         [
           *           "given_name"
           *         ],
           *         [
           *           "employee_id"
           *         ]
           *       ],
           *       "expiresInSeconds": 31536000,
           *       "revocable": true,
           *       "signingAlgorithm": "ES256",
           *       "cryptosuite": null,
           *       "claimsFromLogin": {
           *         "given_name": "given_name",
           *         "employee_id": "preferred_username"
           *       },
           *       "keyAttestationsRequired": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CredentialConfigurationDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATION_NOT_FOUND`: Credential configuration not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteCredentialConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The credential configuration id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATION_NOT_FOUND`: Credential configuration not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCredentialIssuerMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The tenant whose issuer this is. */
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metadata; with a certificate, `signed_metadata` too. With `Accept: application/jwt` and a certificate, the signed metadata alone (OpenID4VCI 1.0 §12.2.3), `typ: openidvci-issuer-metadata+jwt`, ES256, `x5c` in its header. */
      200: {
        headers: {
          /** @description `Accept` */
          Vary?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "credential_issuer": "http://localhost:8080/ctrl/oid4vci/acme",
           *       "credential_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/credential",
           *       "nonce_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/nonce",
           *       "notification_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/notification",
           *       "batch_credential_issuance": {
           *         "batch_size": 2
           *       },
           *       "display": [
           *         {
           *           "name": "ACME Corp"
           *         }
           *       ],
           *       "credential_configurations_supported": {
           *         "EmployeeBadge_sd_jwt": {
           *           "format": "dc+sd-jwt",
           *           "scope": "EmployeeBadge_sd_jwt",
           *           "vct": "https://acme.example/credentials/employee-badge",
           *           "cryptographic_binding_methods_supported": [
           *             "jwk"
           *           ],
           *           "credential_signing_alg_values_supported": [
           *             "ES256"
           *           ],
           *           "proof_types_supported": {
           *             "jwt": {
           *               "proof_signing_alg_values_supported": [
           *                 "ES256",
           *                 "EdDSA"
           *               ]
           *             }
           *           },
           *           "credential_metadata": {
           *             "display": [
           *               {
           *                 "name": "Employee badge",
           *                 "locale": "en",
           *                 "logo": {
           *                   "uri": "https://acme.example/badge.png",
           *                   "alt_text": "The ACME badge"
           *                 },
           *                 "description": "Proves employment at ACME.",
           *                 "background_color": "#12107c",
           *                 "text_color": "#ffffff"
           *               }
           *             ],
           *             "claims": [
           *               {
           *                 "path": [
           *                   "given_name"
           *                 ],
           *                 "mandatory": true,
           *                 "display": [
           *                   {
           *                     "name": "Given name",
           *                     "locale": "en"
           *                   }
           *                 ]
           *               },
           *               {
           *                 "path": [
           *                   "employee_id"
           *                 ],
           *                 "mandatory": true,
           *                 "display": [
           *                   {
           *                     "name": "Employee id",
           *                     "locale": "en"
           *                   }
           *                 ]
           *               }
           *             ]
           *           }
           *         }
           *       },
           *       "signed_metadata": "eyJ0eXAiOiJvcGVuaWR2Y2ktaXNzdWVyLW1ldGFkYXRhK2p3dCIsImFsZyI6IkVTMjU2Iiwia2lkIjoiLi4uIiwieDVjIjpbIk1JSUIuLi4iXX0.eyJjcmVkZW50aWFsX2lzc3VlciI6Ii4uLiJ9.c2ln"
           *     }
           */
          'application/json': {
            [key: string]: unknown;
          };
          /** @example eyJ0eXAiOiJvcGVuaWR2Y2ktaXNzdWVyLW1ldGFkYXRhK2p3dCIsImFsZyI6IkVTMjU2Iiwia2lkIjoiLi4uIiwieDVjIjpbIk1JSUIuLi4iXX0.eyJjcmVkZW50aWFsX2lzc3VlciI6Ii4uLiJ9.c2ln */
          'application/jwt': string;
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getAuthorizationServerMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The tenant whose issuer this is. */
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metadata. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "issuer": "http://localhost:8080/ctrl/oid4vci/acme",
           *       "authorization_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/authorize",
           *       "token_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/token",
           *       "pushed_authorization_request_endpoint": "http://localhost:8080/ctrl/oid4vci/acme/par",
           *       "require_pushed_authorization_requests": true,
           *       "response_types_supported": [
           *         "code"
           *       ],
           *       "code_challenge_methods_supported": [
           *         "S256"
           *       ],
           *       "authorization_response_iss_parameter_supported": true,
           *       "pre-authorized_grant_anonymous_access_supported": true,
           *       "grant_types_supported": [
           *         "authorization_code",
           *         "urn:ietf:params:oauth:grant-type:pre-authorized_code"
           *       ],
           *       "dpop_signing_alg_values_supported": [
           *         "ES256"
           *       ],
           *       "token_endpoint_auth_methods_supported": [
           *         "attest_jwt_client_auth"
           *       ],
           *       "client_attestation_signing_alg_values_supported": [
           *         "ES256"
           *       ],
           *       "client_attestation_pop_signing_alg_values_supported": [
           *         "ES256"
           *       ]
           *     }
           */
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listOffers: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort direction by creation time; the id breaks ties. Direction defaults to asc. */
        sort?: 'createdAt' | 'createdAt,asc' | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of offers. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f",
           *           "status": "offered",
           *           "credentialConfigurationId": "EmployeeBadge_sd_jwt",
           *           "format": "dc+sd-jwt",
           *           "doctype": null,
           *           "credentialIds": [],
           *           "txCodeRequired": true,
           *           "grant": "pre-authorized_code",
           *           "notification": null,
           *           "expiresAt": "2026-11-25T10:10:00.000Z",
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "updatedAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['OfferPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createOffer: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateOfferDto'];
      };
    };
    responses: {
      /** @description The offer, its link and its transaction code. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f",
           *       "status": "offered",
           *       "credentialOffer": {
           *         "credential_issuer": "http://localhost:8080/ctrl/oid4vci/acme",
           *         "credential_configuration_ids": [
           *           "EmployeeBadge_sd_jwt"
           *         ],
           *         "grants": {
           *           "urn:ietf:params:oauth:grant-type:pre-authorized_code": {
           *             "pre-authorized_code": "Wf3nGqvGxJ5oB1m3Zz2q0yQyN3cQ2a9vJ8p4cQk1XbE",
           *             "tx_code": {
           *               "length": 6,
           *               "input_mode": "numeric"
           *             }
           *           }
           *         }
           *       },
           *       "credentialOfferUri": "openid-credential-offer://?credential_offer_uri=http%3A%2F%2Flocalhost%3A8080%2Fctrl%2Foid4vci%2Facme%2Fcredential-offers%2Fc2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM",
           *       "txCode": "493817",
           *       "expiresAt": "2026-11-25T10:10:00.000Z"
           *     }
           */
          'application/json': components['schemas']['CreatedOfferDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CREDENTIAL_CONFIGURATION_NOT_FOUND`: Credential configuration not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `OFFERS_LIMIT_REACHED`: Credential offers limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getOffer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The offer id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The offer. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f",
           *       "status": "offered",
           *       "credentialConfigurationId": "EmployeeBadge_sd_jwt",
           *       "format": "dc+sd-jwt",
           *       "doctype": null,
           *       "credentialIds": [],
           *       "txCodeRequired": true,
           *       "grant": "pre-authorized_code",
           *       "notification": null,
           *       "expiresAt": "2026-11-25T10:10:00.000Z",
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['OfferDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `OFFER_NOT_FOUND`: Credential offer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  withdrawOffer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The offer id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The offer, withdrawn. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f",
           *       "status": "withdrawn",
           *       "credentialConfigurationId": "EmployeeBadge_sd_jwt",
           *       "format": "dc+sd-jwt",
           *       "doctype": null,
           *       "credentialIds": [],
           *       "txCodeRequired": true,
           *       "grant": "pre-authorized_code",
           *       "notification": null,
           *       "expiresAt": "2026-11-25T10:10:00.000Z",
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:02:00.000Z"
           *     }
           */
          'application/json': components['schemas']['OfferDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `OFFER_NOT_FOUND`: Credential offer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `OFFER_NOT_OPEN`: Credential offer not open */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getOfferQrSvg: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The offer id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The QR code of `credentialOfferUri`. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 61 61" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h61v61H0z"/><path stroke="#000000" d="M2 2.5h7…"/></svg> */
          'image/svg+xml': string;
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `OFFER_NOT_FOUND`: Credential offer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `OFFER_NOT_OPEN`: Credential offer not open */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getOfferQrPng: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The offer id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The QR code of `credentialOfferUri`, 512 pixels wide. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /** @example (the PNG image’s bytes: 89 50 4E 47 0D 0A 1A 0A …) */
          'image/png': string;
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `OFFER_NOT_FOUND`: Credential offer not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `OFFER_NOT_OPEN`: Credential offer not open */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getCredentialOffer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The tenant whose issuer this is. */
        tenantId: string;
        /** @description The last segment of the offer’s `credential_offer_uri`. */
        reference: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Credential Offer. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "credential_issuer": "http://localhost:8080/ctrl/oid4vci/acme",
           *       "credential_configuration_ids": [
           *         "EmployeeBadge_sd_jwt"
           *       ],
           *       "grants": {
           *         "urn:ietf:params:oauth:grant-type:pre-authorized_code": {
           *           "pre-authorized_code": "Wf3nGqvGxJ5oB1m3Zz2q0yQyN3cQ2a9vJ8p4cQk1XbE",
           *           "tx_code": {
           *             "length": 6,
           *             "input_mode": "numeric"
           *           }
           *         }
           *       }
           *     }
           */
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `OFFER_NOT_FOUND`: Credential offer not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listPresentationRequests: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Sort direction by creation time; the id breaks ties. Direction defaults to asc. */
        sort?: 'createdAt' | 'createdAt,asc' | 'createdAt,desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of requests. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90",
           *           "status": "pending",
           *           "responseMode": "direct_post",
           *           "clientId": "x509_hash:Gv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo",
           *           "authorizationRequestUri": "openid4vp://?client_id=x509_hash%3AGv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo&request_uri=http%3A%2F%2Flocalhost%3A8080%2Fctrl%2Foid4vp%2Fglobex%2Frequests%2Fc2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM",
           *           "expiresAt": "2026-11-25T10:05:00.000Z",
           *           "requestUriMethod": "get",
           *           "dcqlQuery": {
           *             "credentials": [
           *               {
           *                 "id": "alumni",
           *                 "format": "dc+sd-jwt",
           *                 "meta": {
           *                   "vct_values": [
           *                     "https://globex.example/credentials/alumni"
           *                   ]
           *                 },
           *                 "claims": [
           *                   {
           *                     "path": [
           *                       "given_name"
           *                     ]
           *                   },
           *                   {
           *                     "path": [
           *                       "alumni_of"
           *                     ]
           *                   }
           *                 ]
           *               }
           *             ]
           *           },
           *           "trustedIssuers": null,
           *           "redirectUri": null,
           *           "responseCodeSha256": null,
           *           "expectedOrigins": null,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "endedAt": null,
           *           "refusedAnswers": 0
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1
           *     }
           */
          'application/json': components['schemas']['PresentationRequestPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createPresentationRequest: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreatePresentationRequestDto'];
      };
    };
    responses: {
      /** @description The request and its link, or its `dcApiRequest` (DC API). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedPresentationRequestDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `CLIENT_ID_PREFIX_UNAVAILABLE`: Client identifier prefix unavailable
       *
       *     - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUESTS_LIMIT_REACHED`: Presentation requests limit reached
       *
       *     - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.
       */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getPresentationRequest: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The presentation request id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The request. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PresentationRequestDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_FOUND`: Presentation request not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deletePresentationRequest: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The presentation request id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_FOUND`: Presentation request not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getPresentationRequestQrSvg: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The presentation request id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The QR code of `authorizationRequestUri`. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 61 61" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h61v61H0z"/><path stroke="#000000" d="M2 2.5h7…"/></svg> */
          'image/svg+xml': string;
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_FOUND`: Presentation request not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PRESENTATION_REQUEST_NOT_PENDING`: Presentation request not pending */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getPresentationRequestQrPng: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The presentation request id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The QR code of `authorizationRequestUri`, 512 pixels wide. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /** @example (the PNG image’s bytes: 89 50 4E 47 0D 0A 1A 0A …) */
          'image/png': string;
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_FOUND`: Presentation request not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PRESENTATION_REQUEST_NOT_PENDING`: Presentation request not pending */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  submitDcApiResponse: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The presentation request id. */
        id: string;
      };
      cookie?: never;
    };
    /** @description `data` as the browser returned it: `{vp_token}` for dc_api, `{response}` for dc_api.jwt, for example {"response":"eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImt… */
    requestBody: {
      content: {
        'application/json': components['schemas']['DcApiResponseDto'];
      };
    };
    responses: {
      /** @description The request, concluded by this answer. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PresentationRequestDto'];
        };
      };
      /**
       * @description - `PRESENTATION_ANSWER_REFUSED`: Presentation answer refused
       *     - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_FOUND`: Presentation request not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `PRESENTATION_REQUEST_NOT_PENDING`: Presentation request not pending
       *     - `PRESENTATION_REQUEST_OTHER_MODE`: Presentation request of another response mode
       */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createWebhook: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookDto'];
      };
    };
    responses: {
      /** @description The subscription, with its secret (only here). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z",
           *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
           *     }
           */
          'application/json': components['schemas']['CreatedWebhookDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listWebhooks: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages). */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of subscriptions (never their secrets). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *           "tenantId": "acme",
           *           "url": "http://localhost:9000/agent-events",
           *           "events": [
           *             "credential.issued",
           *             "credential.status.changed"
           *           ],
           *           "description": "Our CRM",
           *           "enabled": true,
           *           "disabledReason": null,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "updatedAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1,
           *       "after": null
           *     }
           */
          'application/json': components['schemas']['WebhookPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The subscription. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  updateWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateWebhookDto'];
      };
    };
    responses: {
      /** @description The subscription as changed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /**
       * @description - `NOTHING_TO_UPDATE`: Nothing to update
       *     - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  rotateWebhookSecret: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The new secret (only here) and when the old one stops signing. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "secret": "whsec_Qm9yZWQgd2l0aCBzZWNyZXRzPyBLZWVwIHRoaXMgb25lLg==",
           *       "previousSecretExpiresAt": "2026-11-26T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['RotatedSecretDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  testWebhook: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The event is queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "deliveryId": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e"
           *     }
           */
          'application/json': components['schemas']['TestDeliveryDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages). */
        after?: string;
      };
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of deliveries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e",
           *           "eventType": "credential.issued",
           *           "state": "delivered",
           *           "attempts": 2,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "nextAttemptAt": null,
           *           "finishedAt": "2026-11-25T10:00:05.412Z",
           *           "log": [
           *             {
           *               "attempt": 1,
           *               "startedAt": "2026-11-25T10:00:00.105Z",
           *               "statusCode": 503,
           *               "durationMs": 41,
           *               "error": null,
           *               "responseExcerpt": "Service Unavailable",
           *               "responseContentType": "text/plain"
           *             },
           *             {
           *               "attempt": 2,
           *               "startedAt": "2026-11-25T10:00:05.380Z",
           *               "statusCode": 204,
           *               "durationMs": 32,
           *               "error": null,
           *               "responseExcerpt": null,
           *               "responseContentType": null
           *             }
           *           ]
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1,
           *       "after": null
           *     }
           */
          'application/json': components['schemas']['WebhookDeliveryPageDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  redeliverWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
        /** @description The delivery (its `webhook-id`). */
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description It is queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "deliveryId": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e"
           *     }
           */
          'application/json': components['schemas']['TestDeliveryDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `WEBHOOK_DELIVERY_NOT_FOUND`: Webhook delivery not found
       *     - `TENANT_NOT_FOUND`: No such tenant.
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  createAdminWebhook: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookDto'];
      };
    };
    responses: {
      /** @description The subscription, with its secret (only here). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z",
           *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
           *     }
           */
          'application/json': components['schemas']['CreatedWebhookDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *
       *     - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listAdminWebhooks: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages). */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of subscriptions (never their secrets). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *           "tenantId": "acme",
           *           "url": "http://localhost:9000/agent-events",
           *           "events": [
           *             "credential.issued",
           *             "credential.status.changed"
           *           ],
           *           "description": "Our CRM",
           *           "enabled": true,
           *           "disabledReason": null,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "updatedAt": "2026-11-25T10:00:00.000Z"
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1,
           *       "after": null
           *     }
           */
          'application/json': components['schemas']['WebhookPageDto'];
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getAdminWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The subscription. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  updateAdminWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateWebhookDto'];
      };
    };
    responses: {
      /** @description The subscription as changed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f",
           *       "tenantId": "acme",
           *       "url": "http://localhost:9000/agent-events",
           *       "events": [
           *         "credential.issued",
           *         "credential.status.changed"
           *       ],
           *       "description": "Our CRM",
           *       "enabled": true,
           *       "disabledReason": null,
           *       "createdAt": "2026-11-25T10:00:00.000Z",
           *       "updatedAt": "2026-11-25T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['WebhookDto'];
        };
      };
      /**
       * @description - `NOTHING_TO_UPDATE`: Nothing to update
       *     - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  rotateAdminWebhookSecret: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The new secret (only here) and when the old one stops signing. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "secret": "whsec_Qm9yZWQgd2l0aCBzZWNyZXRzPyBLZWVwIHRoaXMgb25lLg==",
           *       "previousSecretExpiresAt": "2026-11-26T10:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['RotatedSecretDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteAdminWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  testAdminWebhook: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it. The same key with the same request within 24 hours answers the first 2xx answer again (with `Idempotent-Replayed: true`) and does nothing more; with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key. Keys count per caller (the token's subject), tenant and operation. */
        'Idempotency-Key'?: string;
      };
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The event is queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "deliveryId": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e"
           *     }
           */
          'application/json': components['schemas']['TestDeliveryDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_INVALID`: The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_IN_USE`: A request with this Idempotency-Key is still being processed; retry after Retry-After seconds. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `IDEMPOTENCY_KEY_REUSED`: This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  listAdminWebhookDeliveries: {
    parameters: {
      query?: {
        /** @description Page number, from 0. */
        page?: number;
        /** @description Page size. */
        size?: number;
        /** @description Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages). */
        after?: string;
      };
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of deliveries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "content": [
           *         {
           *           "id": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e",
           *           "eventType": "credential.issued",
           *           "state": "delivered",
           *           "attempts": 2,
           *           "createdAt": "2026-11-25T10:00:00.000Z",
           *           "nextAttemptAt": null,
           *           "finishedAt": "2026-11-25T10:00:05.412Z",
           *           "log": [
           *             {
           *               "attempt": 1,
           *               "startedAt": "2026-11-25T10:00:00.105Z",
           *               "statusCode": 503,
           *               "durationMs": 41,
           *               "error": null,
           *               "responseExcerpt": "Service Unavailable",
           *               "responseContentType": "text/plain"
           *             },
           *             {
           *               "attempt": 2,
           *               "startedAt": "2026-11-25T10:00:05.380Z",
           *               "statusCode": 204,
           *               "durationMs": 32,
           *               "error": null,
           *               "responseExcerpt": null,
           *               "responseContentType": null
           *             }
           *           ]
           *         }
           *       ],
           *       "number": 0,
           *       "size": 20,
           *       "totalElements": 1,
           *       "totalPages": 1,
           *       "after": null
           *     }
           */
          'application/json': components['schemas']['WebhookDeliveryPageDto'];
        };
      };
      /** @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  redeliverAdminWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The subscription id. */
        id: string;
        /** @description The delivery (its `webhook-id`). */
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description It is queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "deliveryId": "a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e"
           *     }
           */
          'application/json': components['schemas']['TestDeliveryDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /**
       * @description - `WEBHOOK_NOT_FOUND`: Webhook subscription not found
       *     - `WEBHOOK_DELIVERY_NOT_FOUND`: Webhook delivery not found
       */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  live: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Alive. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok"
           *     }
           */
          'application/json': {
            /** @enum {string} */
            status: 'ok';
          };
        };
      };
    };
  };
  ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ready: every check is up. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok",
           *       "info": {
           *         "database": {
           *           "status": "up"
           *         },
           *         "issuer": {
           *           "status": "up",
           *           "mode": "embedded"
           *         }
           *       },
           *       "error": {},
           *       "details": {
           *         "database": {
           *           "status": "up"
           *         },
           *         "issuer": {
           *           "status": "up",
           *           "mode": "embedded"
           *         }
           *       }
           *     }
           */
          'application/json': {
            /** @enum {string} */
            status: 'ok';
            info?: {
              [key: string]: {
                /** @enum {string} */
                status: 'up' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            error?: {
              [key: string]: {
                /** @enum {string} */
                status: 'up' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            details: {
              [key: string]: {
                /** @enum {string} */
                status: 'up' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
          };
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  getLoginProvider: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The provider, without its secret. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LoginProviderDto'];
        };
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  setLoginProvider: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetLoginProviderDto'];
      };
    };
    responses: {
      /** @description The provider, without its secret. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "issuer": "https://login.example.com/realms/people",
           *       "clientId": "acme-issuance",
           *       "scopes": [
           *         "openid",
           *         "profile",
           *         "email"
           *       ],
           *       "redirectUri": "https://agent.example.com/ctrl/oid4vci/acme/login/callback",
           *       "default": false,
           *       "createdAt": "2026-11-29T09:00:00.000Z"
           *     }
           */
          'application/json': components['schemas']['LoginProviderDto'];
        };
      };
      /**
       * @description - `VALIDATION_FAILED`: A field, query parameter or path id is invalid, missing or unknown.
       *     - `MALFORMED_JSON`: Malformed JSON body
       *     - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `PAYLOAD_TOO_LARGE`: Payload too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNSUPPORTED_MEDIA_TYPE`: Unsupported media type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `LOGIN_PROVIDER_DISCOVERY_FAILED`: Login provider discovery failed */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
  deleteLoginProvider: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The tenant uses the bundled realm. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description - `TENANT_HEADER_MISSING`: Tenant header missing
       *     - `TENANT_HEADER_INVALID`: Tenant header invalid
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `UNAUTHORIZED`: No valid access token. */
      401: {
        headers: {
          /** @description RFC 6750 Bearer challenge */
          'WWW-Authenticate'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `FORBIDDEN`: The caller may not do this (role, or tenant outside its tenant_ids). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `TENANT_NOT_FOUND`: No such tenant. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `RATE_LIMITED`: Too many requests this second or this minute from the caller or the address; see Retry-After. */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `INTERNAL_ERROR`: Internal server error */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
      /** @description - `SERVICE_UNAVAILABLE`: The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After. */
      503: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['ProblemDto'];
        };
      };
    };
  };
}
