/** HTML-escapes text for element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (character) => `&#${character.charCodeAt(0)};`);
}

const styles = `
  body { font-family: system-ui, sans-serif; background: #f3f4f6; margin: 0; display: flex; min-height: 100vh;
    align-items: center; justify-content: center; color: #111827; }
  main { background: #fff; padding: 2rem 2.5rem; border-radius: 8px; box-shadow: 0 2px 12px rgba(0,0,0,.12);
    width: 22rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  p.realm { margin: 0 0 1.5rem; color: #6b7280; }
  label { display: block; font-size: .9rem; margin: 1rem 0 .3rem; }
  input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: .55rem .6rem;
    border: 1px solid #d1d5db; border-radius: 4px; font-size: 1rem; }
  button { margin-top: 1.5rem; width: 100%; padding: .65rem; background: #2563eb; color: #fff; border: 0;
    border-radius: 4px; font-size: 1rem; cursor: pointer; }
  .error { background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; padding: .6rem .75rem;
    border-radius: 4px; margin-bottom: 1rem; }
  .dev { margin-top: 1.25rem; font-size: .8rem; color: #92400e; }`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * The sign-in form of the code flow. Its action carries the binding to the authorization request
 * (session_code, execution, client_id, tab_id); the request itself stays on the server.
 */
export function loginPage(options: {
  realmDisplayName: string;
  action: string;
  username?: string;
  error?: string;
}): string {
  return page(
    `Sign in to ${options.realmDisplayName}`,
    `<h1>Sign in</h1>
<p class="realm">${escapeHtml(options.realmDisplayName)}</p>
${options.error === undefined ? '' : `<div class="error" role="alert" id="input-error">${escapeHtml(options.error)}</div>`}
<form id="kc-form-login" method="post" action="${escapeHtml(options.action)}">
<label for="username">Username or email</label>
<input type="text" id="username" name="username" value="${escapeHtml(options.username ?? '')}" autocomplete="username" autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<button type="submit" id="kc-login" name="login">Sign In</button>
</form>
<p class="dev">Embedded development issuer of the agent service. Use Keycloak in production.</p>`,
  );
}

/** Keycloak's page for a form posted from an outdated login page. */
export function pageExpiredPage(restartUrl: string): string {
  return page(
    'Page has expired',
    `<h1>Page has expired</h1>
<p id="instruction1">To restart the login process <a id="loginRestartLink" href="${escapeHtml(restartUrl)}">Click here</a>.</p>`,
  );
}

/** Keycloak shows errors it cannot redirect (unknown client, bad redirect URI) on a page of its own. */
export function errorPage(message: string): string {
  return page(
    'Sign-in error',
    `<h1>We are sorry...</h1>\n<div class="error" role="alert" id="kc-error-message">${escapeHtml(message)}</div>`,
  );
}

export function loggedOutPage(): string {
  return page('Signed out', '<h1>You are logged out</h1>');
}
