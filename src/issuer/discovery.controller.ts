import { Controller, Get, Header, Inject, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { IssuerErrorFilter } from './issuer-http.js';
import { IssuerKeys } from './issuer-keys.js';
import { ISSUER_URL } from './issuer-url.js';

/** What a client learns before it asks for a token: the realm's endpoints and its signing keys. */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud')
export class DiscoveryController {
  constructor(
    private readonly keys: IssuerKeys,
    @Inject(ISSUER_URL) private readonly issuerUrl: string,
  ) {}

  @Get('.well-known/openid-configuration')
  @Public()
  discovery(): Record<string, unknown> {
    const base = `${this.issuerUrl}/protocol/openid-connect`;
    return {
      issuer: this.issuerUrl,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      introspection_endpoint: `${base}/token/introspect`,
      userinfo_endpoint: `${base}/userinfo`,
      end_session_endpoint: `${base}/logout`,
      frontchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      jwks_uri: `${base}/certs`,
      grant_types_supported: [
        'authorization_code',
        'client_credentials',
        'password',
        'refresh_token',
      ],
      acr_values_supported: ['0', '1'],
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      userinfo_signing_alg_values_supported: ['RS256', 'none'],
      response_modes_supported: ['query', 'fragment'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint: `${base}/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      claims_supported: [
        'aud',
        'sub',
        'iss',
        'auth_time',
        'name',
        'given_name',
        'family_name',
        'preferred_username',
        'email',
        'acr',
      ],
      claim_types_supported: ['normal'],
      claims_parameter_supported: true,
      scopes_supported: [
        'openid',
        'email',
        'profile',
        'roles',
        'web-origins',
        'acr',
        'basic',
        'offline_access',
      ],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      code_challenge_methods_supported: ['plain', 'S256'],
      tls_client_certificate_bound_access_tokens: false,
    };
  }

  @Get('protocol/openid-connect/certs')
  @Public()
  @Header('Cache-Control', 'no-cache')
  certs(): { keys: unknown[] } {
    return { keys: [this.keys.publicJwk] };
  }
}
