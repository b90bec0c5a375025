/**
 * A Swagger UI add-on (served inline with the UI): once the user is authorized, it lists the caller's
 * tenants (GET /ctrl/api/v1.0/tenants) in a box at the top and fills the `tenant` security scheme
 * (the x-tenant-id header) with the one picked, so nobody copies ids by hand. It refreshes after a
 * tenant is created or deleted through the UI.
 */
export const tenantPickerScript = String.raw`
(function () {
  var lastToken = null;
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
      // preauthorizeApiKey bypasses the Authorize dialog's persisting wrapper: without this the tenant
      // (unlike the login) is forgotten on reload although persistAuthorization is on.
      window.ui.authActions.persistAuthorizationIfNeeded();
      note.style.color = '#555';
      note.textContent = select.value ? 'tenant-scoped calls now send x-tenant-id: ' + select.value : '';
    });
    return element;
  }
  function render(ui, ids) {
    var element = box();
    if (!element) return;
    var select = element.querySelector('select');
    var chosen = currentTenant(ui) || select.value;
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
  }
  function refresh(ui, force) {
    var token = accessToken(ui);
    if (!token || (!force && token === lastToken)) return;
    lastToken = token;
    window.__agentFetch(window.location.origin + '/ctrl/api/v1.0/tenants?size=100&sort=id,asc', {
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
  window.__agentFetch = window.fetch.bind(window);
  window.fetch = function (input, init) {
    var result = window.__agentFetch(input, init);
    var url = typeof input === 'string' ? input : input && input.url;
    var method = (init && init.method) || 'GET';
    if (/\/ctrl\/api\//.test(url || '')) {
      result.then(function (response) { if (response.status === 401 && window.ui && accessToken(window.ui)) showExpired(); });
    }
    if (method.toUpperCase() === 'POST' && /\/ctrl\/api\/v1\.0\/tenants\//.test(url || '')) {
      result.then(function (response) { if (response.ok && window.ui) setTimeout(function () { refresh(window.ui, true); }, 0); });
    }
    return result;
  };
  var wait = setInterval(function () {
    if (!window.ui || !window.ui.authSelectors) return;
    clearInterval(wait);
    refresh(window.ui, true);
    setInterval(function () { refresh(window.ui, false); }, 1000);
  }, 200);
})();
`;
