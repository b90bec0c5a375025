/**
 * A Swagger UI add-on (served inline with the UI), the one control for the `x-tenant-id` header: a box at
 * the top that says to sign in first, then lists the caller's tenants (GET /ctrl/api/v1.0/tenants) and
 * fills the `tenant` security scheme with the one picked, so nobody copies ids by hand. It refreshes
 * after a tenant is created or deleted through the UI. The Authorize dialog leaves the `tenant` scheme
 * out (a plugin), so the header is not offered twice; the document keeps it for clients. It reaches
 * Swagger UI only through its public options (`plugins`, `responseInterceptor`; see
 * `swaggerUiHooks`) and its documented `preauthorizeApiKey`, and keeps the picked tenant in its own
 * localStorage entry.
 */
export const tenantPickerScript = String.raw`
(function () {
  // The token whose tenants the box lists; '' while it asks the user to sign in first.
  var lastToken = null;
  var storageKey = 'agent-service.tenant';
  function storedTenant() {
    try { return window.localStorage.getItem(storageKey) || ''; } catch (error) { return ''; }
  }
  function storeTenant(id) {
    try {
      if (id) window.localStorage.setItem(storageKey, id);
      else window.localStorage.removeItem(storageKey);
    } catch (error) {}
  }
  function withoutTenantScheme() {
    return {
      wrapComponents: {
        auths: function (Original, system) {
          return function (props) {
            var definitions = props.definitions.filter(function (_definition, name) { return name !== 'tenant'; });
            if (definitions.size === 0) return null;
            return system.React.createElement(Original, Object.assign({}, props, { definitions: definitions }));
          };
        },
      },
    };
  }
  function accessToken(ui) {
    var auth = ui.authSelectors.authorized();
    auth = auth && auth.toJS ? auth.toJS() : {};
    if (auth.oauth2 && auth.oauth2.token && auth.oauth2.token.access_token) return auth.oauth2.token.access_token;
    if (auth.bearer && auth.bearer.value) return auth.bearer.value;
    return null;
  }
  function currentTenant(ui) {
    var auth = ui.authSelectors.authorized();
    auth = auth && auth.toJS ? auth.toJS() : {};
    return auth.tenant ? auth.tenant.value : '';
  }
  function box() {
    var existing = document.getElementById('agent-tenant-picker');
    if (existing) return existing;
    var anchor = document.querySelector('.swagger-ui .scheme-container') || document.querySelector('.swagger-ui .information-container');
    if (!anchor) return null;
    var element = document.createElement('div');
    element.id = 'agent-tenant-picker';
    element.style.cssText = 'max-width:1460px;margin:0 auto;padding:12px 20px;font-family:sans-serif;display:flex;gap:12px;align-items:center';
    var label = document.createElement('label');
    label.htmlFor = 'agent-tenant-select';
    label.textContent = 'Tenant (x-tenant-id):';
    label.style.fontWeight = 'bold';
    var select = document.createElement('select');
    select.id = 'agent-tenant-select';
    var note = document.createElement('span');
    note.id = 'agent-tenant-note';
    note.style.color = '#555';
    element.appendChild(label);
    element.appendChild(select);
    element.appendChild(note);
    anchor.parentNode.insertBefore(element, anchor.nextSibling);
    select.addEventListener('change', function () {
      if (select.value) window.ui.preauthorizeApiKey('tenant', select.value);
      else window.ui.authActions.logout(['tenant']);
      // Swagger UI persists what its Authorize dialog sets, not a preauthorized key: kept here instead.
      storeTenant(select.value);
      note.style.color = '#555';
      note.textContent = select.value ? 'tenant-scoped calls now send x-tenant-id: ' + select.value : '';
    });
    return element;
  }
  function showSignedOut() {
    var element = box();
    if (!element) return false;
    var select = element.querySelector('select');
    select.textContent = '';
    var prompt = document.createElement('option');
    prompt.value = '';
    prompt.textContent = 'sign in first';
    select.appendChild(prompt);
    select.disabled = true;
    var note = element.querySelector('#agent-tenant-note');
    note.style.color = '#555';
    note.textContent = 'Choose Authorize and sign in under oauth2 (local mode: admin/admin or demo/demo): your tenants are listed here then.';
    return true;
  }
  function render(ui, ids) {
    var element = box();
    if (!element) return;
    var select = element.querySelector('select');
    select.disabled = false;
    var chosen = currentTenant(ui) || select.value || storedTenant();
    select.textContent = '';
    var prompt = document.createElement('option');
    prompt.value = '';
    prompt.textContent = ids.length ? 'choose a tenant' : 'no tenant yet: create one below';
    select.appendChild(prompt);
    ids.forEach(function (id) {
      var option = document.createElement('option');
      option.value = id;
      option.textContent = id;
      select.appendChild(option);
    });
    if (ids.indexOf(chosen) < 0) chosen = ids.length === 1 ? ids[0] : '';
    select.value = chosen;
    if (chosen && chosen !== currentTenant(ui)) select.dispatchEvent(new Event('change'));
    var note = element.querySelector('#agent-tenant-note');
    if (!chosen) {
      note.style.color = '#555';
      note.textContent = ids.length ? 'pick the tenant that tenant-scoped calls act for' : '';
    }
  }
  function refresh(ui, force) {
    var token = accessToken(ui);
    if (!token) {
      if (lastToken !== '' && showSignedOut()) lastToken = '';
      return;
    }
    if (!force && token === lastToken) return;
    lastToken = token;
    window.fetch(window.location.origin + '/ctrl/api/v1.0/tenants?size=100&sort=id,asc', {
      headers: { authorization: 'Bearer ' + token },
    })
      .then(function (response) {
        if (response.status === 401) showExpired();
        return response.ok ? response.json() : null;
      })
      .then(function (page) { if (page) render(ui, page.content.map(function (tenant) { return tenant.id; })); })
      .catch(function () {});
  }
  // Swagger UI keeps a token after it expires (access tokens last 10 minutes): say so instead of
  // leaving the user with unexplained 401s.
  function showExpired() {
    var element = box();
    if (!element) return;
    var note = element.querySelector('#agent-tenant-note');
    note.textContent = 'Your sign-in has expired: choose Authorize, then Logout and Authorize again.';
    note.style.color = '#b91c1c';
  }
  window.agentTenantPicker = {
    plugin: withoutTenantScheme,
    // Swagger UI's responseInterceptor: every Try it out answer passes here.
    onResponse: function (response) {
      var url = (response && response.url) || '';
      if (/\/ctrl\/api\//.test(url) && response.status === 401 && window.ui && accessToken(window.ui)) showExpired();
      if (response && response.ok && window.ui && /\/ctrl\/api\/v1\.0\/tenants\/(create|[^/?]+\/(update|delete))/.test(url)) {
        setTimeout(function () { refresh(window.ui, true); }, 0);
      }
      return response;
    },
  };
  var wait = setInterval(function () {
    if (!window.ui || !window.ui.authSelectors) return;
    clearInterval(wait);
    refresh(window.ui, true);
    setInterval(function () { refresh(window.ui, false); }, 1000);
  }, 200);
})();
`;

/** What the script above leaves on `window` for the hooks below. */
interface PickerWindow {
  agentTenantPicker: { plugin: () => unknown; onResponse: (response: unknown) => unknown };
  SwaggerUIBundle: { plugins: { DownloadUrl: (system: unknown) => unknown } };
}

/**
 * Swagger UI options that hand over to the picker. @nestjs/swagger writes these functions into the
 * page as their source text, so each stands alone and reaches the picker through `window`.
 */
export const swaggerUiHooks = {
  plugins: [
    // @nestjs/swagger's default plugin list, which these options replace.
    (system: unknown) =>
      (globalThis as unknown as PickerWindow).SwaggerUIBundle.plugins.DownloadUrl(system),
    () => (globalThis as unknown as PickerWindow).agentTenantPicker.plugin(),
  ],
  responseInterceptor: (response: unknown) =>
    (globalThis as unknown as PickerWindow).agentTenantPicker.onResponse(response),
};
