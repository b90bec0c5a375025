import { OAuthError } from '../common/oauth-error.js';
import { type Realm, type RealmUserView } from './realm.js';

/** Keycloak's one answer for an unknown user, a wrong password and a locked-out user alike. */
export function invalidUserCredentials(): OAuthError {
  return new OAuthError(400, 'invalid_grant', 'Invalid user credentials');
}

/** The realm user a username (or email) names, if they may log in with a password at all. */
export function passwordUser(realm: Realm, username: string): RealmUserView {
  const user = realm.findUser(username);
  if (user === undefined || user.serviceAccountClientId !== undefined) {
    throw invalidUserCredentials();
  }
  return user;
}

/** What Keycloak's direct grant and login form check once the password is right. */
export function checkAccount(realm: Realm, user: RealmUserView): void {
  if (!user.enabled) throw new OAuthError(400, 'invalid_grant', 'Account disabled');
  if (!user.fullySetUp || realm.hasTemporaryPassword(user)) {
    throw new OAuthError(400, 'invalid_grant', 'Account is not fully set up');
  }
}
