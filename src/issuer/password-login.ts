import { Injectable } from '@nestjs/common';
import { BruteForceProtector } from './brute-force-protector.js';
import { checkAccount, invalidUserCredentials, passwordUser } from './credentials.js';
import { Realm, type RealmUserView } from './realm.js';

export type PasswordChannel = 'direct-grant' | 'login-form';

export interface PasswordAttempt {
  username: string;
  password: string;
  channel: PasswordChannel;
  clientAddress: string;
  requestId?: string;
}

/**
 * A username and password checked as Keycloak 26 checks them, on the token endpoint (direct grant) and
 * the login form alike: a locked-out user is refused before the password is looked at, with the same
 * answer as a wrong password; failures of known users are counted (in advance, so that concurrent
 * attempts get no more checks than a sequence), a right password forgets them.
 */
@Injectable()
export class PasswordLogin {
  constructor(
    private readonly realm: Realm,
    private readonly protector: BruteForceProtector,
  ) {}

  async authenticate(attempt: PasswordAttempt): Promise<RealmUserView> {
    const user = passwordUser(this.realm, attempt.username);
    // Keycloak's form refuses an empty password before anything else, without counting it.
    if (attempt.channel === 'login-form' && attempt.password === '') throw invalidUserCredentials();
    const allowed = await this.protector.reserve(user, attempt.clientAddress);
    if (allowed === undefined) {
      this.protector.logRefused(user, attempt.clientAddress, attempt.requestId);
      throw invalidUserCredentials();
    }
    if (!this.realm.passwordMatches(user, attempt.password)) {
      this.protector.failedLogin(user, attempt.clientAddress, allowed, attempt.requestId);
      throw invalidUserCredentials();
    }
    await this.protector.successfulLogin(user);
    checkAccount(this.realm, user);
    return user;
  }
}
