import { OAuthError } from './oauth-error.js';
import { type Realm, type RealmUserView } from './realm.js';

/** Checks a username (or email) and password as Keycloak's direct grant and login form do. */
export function checkCredentials(realm: Realm, username: string, password: string): RealmUserView {
  const user = realm.findUser(username);
  if (
    user === undefined ||
    user.serviceAccountClientId !== undefined ||
    !realm.passwordMatches(user, password)
  ) {
    throw new OAuthError(400, 'invalid_grant', 'Invalid user credentials');
  }
  if (!user.enabled) throw new OAuthError(400, 'invalid_grant', 'Account disabled');
  if (!user.fullySetUp || realm.hasTemporaryPassword(user)) {
    throw new OAuthError(400, 'invalid_grant', 'Account is not fully set up');
  }
  return user;
}
