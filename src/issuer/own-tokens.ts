import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, type JWTPayload } from 'jose';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerKeys } from './issuer-keys.js';
import { ISSUER_URL } from './issuer-url.js';
import { OAuthError } from '../common/oauth-error.js';
import { Realm } from './realm.js';
import { TokenFactory } from './token-factory.js';

/** The issuer's own access and ID tokens presented back to it: userinfo and logout's id_token_hint. */
@Injectable()
export class OwnTokens {
  constructor(
    private readonly realm: Realm,
    private readonly keys: IssuerKeys,
    private readonly tokens: TokenFactory,
    @Inject(ISSUER_URL) private readonly issuerUrl: string,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Verifies an access or ID token of this issuer. */
  async verify(
    token: string,
    type: 'Bearer' | 'ID',
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<JWTPayload & Record<string, unknown>> {
    const { payload } = await jwtVerify(token, this.keys.verificationKey, {
      algorithms: ['RS256'],
      issuer: this.issuerUrl,
      currentDate: new Date(options.ignoreExpiry === true ? 0 : this.clock()),
    });
    if (payload.typ !== type) throw new Error(`not a ${type} token`);
    return payload;
  }

  /** The userinfo claims of a verified access token's user, as its client's mappers release them. */
  userinfo(payload: Record<string, unknown>): Record<string, unknown> {
    const user = this.realm.userById(String(payload.sub));
    const client = this.realm.client(String(payload.azp));
    if (user === undefined || client === undefined)
      throw new OAuthError(401, 'invalid_token', 'Token verification failed');
    const claims: Record<string, unknown> = { sub: user.id, ...this.tokens.profileClaims(user) };
    for (const [name, value] of this.realm.attributeClaims(client, user, 'userinfo.token.claim'))
      claims[name] = value;
    return claims;
  }
}
