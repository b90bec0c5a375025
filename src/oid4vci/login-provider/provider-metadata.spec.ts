import { LoginProviderError } from './login-provider.error.js';
import { discoveryUrl, metadataOf } from './provider-metadata.js';

describe(metadataOf.name, () => {
  const issuer = 'https://login.example/realms/a';
  const policy = { allowPrivate: false } as const;
  const document = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/certs`,
    userinfo_endpoint: `${issuer}/userinfo`,
    response_types_supported: ['code', 'id_token'],
    code_challenge_methods_supported: ['plain', 'S256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_post'],
  };
  const refusal = (changed: Record<string, unknown>) => {
    try {
      metadataOf({ ...document, ...changed }, issuer, policy);
    } catch (error) {
      expect(error).toBeInstanceOf(LoginProviderError);
      return (error as LoginProviderError).reason;
    }
    return 'accepted';
  };

  it('reads the endpoints and the client authentication the provider offers', () => {
    expect(metadataOf(document, issuer, policy)).toEqual({
      issuer,
      authorizationEndpoint: `${issuer}/auth`,
      tokenEndpoint: `${issuer}/token`,
      jwksUri: `${issuer}/certs`,
      userinfoEndpoint: `${issuer}/userinfo`,
      tokenAuthMethod: 'client_secret_post',
    });
    const bare: Record<string, unknown> = { ...document };
    delete bare.userinfo_endpoint;
    delete bare.token_endpoint_auth_methods_supported;
    expect(metadataOf(bare, issuer, policy)).toMatchObject({
      tokenAuthMethod: 'client_secret_basic',
    });
    expect(metadataOf(bare, issuer, policy)).not.toHaveProperty('userinfoEndpoint');
  });

  it.each([
    ['another issuer', { issuer: `${issuer}/` }],
    ['no token endpoint', { token_endpoint: undefined }],
    ['a jwks_uri on a private address', { jwks_uri: 'https://10.0.0.1/certs' }],
    ['a token endpoint over http', { token_endpoint: 'http://login.example/token' }],
    ['an authorization endpoint of another scheme', { authorization_endpoint: 'javascript:x' }],
    ['no code flow', { response_types_supported: ['id_token'] }],
    ['no S256', { code_challenge_methods_supported: ['plain'] }],
    [
      'no secret-based authentication',
      { token_endpoint_auth_methods_supported: ['private_key_jwt'] },
    ],
  ])('refuses a document with %s', (_why, changed) => {
    expect(refusal(changed)).toBe('invalid_answer');
  });

  it('finds the document where OpenID Connect Discovery §4 says', () => {
    expect(discoveryUrl(issuer)).toBe(`${issuer}/.well-known/openid-configuration`);
    expect(discoveryUrl('https://login.example/')).toBe(
      'https://login.example/.well-known/openid-configuration',
    );
  });
});
