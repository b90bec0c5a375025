import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { startTestService, type TestService } from '../support/test-service.js';

/**
 * The Swagger UI in real Chromium: Authorize with the preconfigured OAuth2 client,
 * sign in on the embedded issuer's login page, create a tenant with "Try it out", pick it in the tenant
 * box and call GET /ctrl/api/v1.0/did. Screenshots go to test-artifacts/swagger-ui/ (gitignored).
 *
 * Needs Debian's chromium at /usr/bin/chromium (CHROMIUM_PATH overrides); playwright-core never
 * downloads a browser.
 */
const artifacts = fileURLToPath(new URL('../../test-artifacts/swagger-ui/', import.meta.url));
const realmAuth = '/auth/realms/agent-cloud/protocol/openid-connect/auth';
/** How long a step may wait for the page: long, since a busy CI machine runs other system tests beside it. */
const patience = 30_000;

interface Tenant {
  id: string;
  label: string;
  did: string;
}

/** Runs one step of the flow; on failure saves a screenshot of every open page before rethrowing. */
async function step<T>(page: Page, name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    for (const [index, open] of page.context().pages().entries()) {
      await open
        .screenshot({ path: join(artifacts, `failure-${name}-${index}.png`), fullPage: true })
        .catch(() => undefined);
    }
    throw error;
  }
}

/** The top-level Authorize button, the dialog, and the section of one security scheme in it. */
function authorizeButton(page: Page): Locator {
  return page.locator('.auth-wrapper button.authorize');
}
function schemeSection(page: Page, scheme: string): Locator {
  return page
    .locator('.dialog-ux .auth-container')
    .filter({ has: page.locator('h4', { hasText: new RegExp(`^\\s*${scheme}\\b`) }) });
}

/** Authorize → oauth2 → Authorize → login popup → back with a token; leaves the dialog closed. */
async function signIn(
  page: Page,
  user: 'admin' | 'demo',
  baseUrl: string,
  loginScreenshot?: string,
): Promise<void> {
  await authorizeButton(page).click();
  const oauth = schemeSection(page, 'oauth2');
  await oauth.waitFor();
  // One control for x-tenant-id, the Tenant box: the dialog offers no tenant field besides it.
  expect(await schemeSection(page, 'tenant').count()).toBe(0);
  expect(await page.locator('.dialog-ux input[name="x-tenant-id"]').count()).toBe(0);
  // client_id agent-client (preconfigured by initOAuth), no secret, nothing else.
  expect(await oauth.locator('#client_id_authorizationCode').inputValue()).toBe('agent-client');
  expect(await oauth.locator('#client_secret_authorizationCode').inputValue()).toBe('');
  const popupOpened = page.waitForEvent('popup');
  await oauth.locator('button.authorize').click();
  const popup = await popupOpened;
  await popup.waitForLoadState('domcontentloaded');
  const authorizationRequest = new URL(popup.url());
  expect(`${authorizationRequest.origin}${authorizationRequest.pathname}`).toBe(
    `${baseUrl}${realmAuth}`,
  );
  expect(Object.fromEntries(authorizationRequest.searchParams)).toMatchObject({
    response_type: 'code',
    client_id: 'agent-client',
    redirect_uri: `${baseUrl}/ctrl/swagger-ui/oauth2-redirect.html`,
    code_challenge_method: 'S256',
    scope: 'openid',
  });
  await popup.locator('#kc-form-login').waitFor();
  await popup.locator('#username').fill(user);
  await popup.locator('#password').fill(user);
  if (loginScreenshot !== undefined) await popup.screenshot({ path: loginScreenshot });
  // oauth2-redirect.html hands the code back to the opener and closes the popup.
  const popupClosed = popup.waitForEvent('close');
  await popup.locator('#kc-login').click();
  await popupClosed;
  await oauth.locator('button', { hasText: 'Logout' }).waitFor();
}

async function closeDialog(page: Page): Promise<void> {
  await schemeSection(page, 'oauth2').locator('button.btn-done').click();
  await page.locator('.dialog-ux').waitFor({ state: 'detached' });
}

/** Expands an operation and makes sure "Try it out" is on (the UI starts with it on: tryItOutEnabled). */
async function openOperation(page: Page, id: string): Promise<Locator> {
  const operation = page.locator(`#operations-${id}`);
  await operation.waitFor();
  if (!/\bis-open\b/.test((await operation.getAttribute('class')) ?? '')) {
    await operation.locator('.opblock-summary').first().click();
  }
  const tryOut = operation.locator('button.try-out__btn');
  if ((await tryOut.innerText()).trim() === 'Try it out') await tryOut.click();
  await operation.locator('button.execute').waitFor();
  return operation;
}

/** Execute, then the status and parsed JSON body of the live response section. */
async function execute(operation: Locator): Promise<{ status: number; body: unknown }> {
  await operation.locator('button.execute').click();
  const live = operation.locator('.live-responses-table tbody tr.response').first();
  await live.waitFor();
  const status = Number((await live.locator('.response-col_status').innerText()).trim());
  const text = await live.locator('.response-col_description pre.microlight').first().innerText();
  return { status, body: JSON.parse(text) as unknown };
}

/** The tenant box's options once it lists `expected` (it refreshes on its own after a create). */
async function pickerOptions(page: Page, expected: string): Promise<string[]> {
  const select = page.locator('#agent-tenant-select');
  await select
    .locator(`option[value="${expected}"]`)
    .waitFor({ state: 'attached', timeout: patience })
    .catch(async () => {
      const listed = await select.locator('option').allInnerTexts();
      throw new Error(
        `tenant picker does not list ${expected}; it lists ${JSON.stringify(listed)}`,
      );
    });
  const values: string[] = [];
  for (const option of await select.locator('option').all()) {
    values.push((await option.getAttribute('value')) ?? '');
  }
  return values;
}

describe('Swagger UI in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const existingTenant = 'acme-existing';
  const tenant = 'swagger-ui-tenant';
  let created: Tenant;

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    service = await startTestService();
    // A tenant that already exists, so that the new one has to be picked, not just defaulted to.
    const existing = await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: existingTenant, label: 'Existing' },
    });
    expect(existing.status).toBe(201);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(patience);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    // The browser first (it holds keep-alive connections the service would wait for), then the service;
    // both even when the other fails or beforeAll stopped half-way.
    const closing = await Promise.allSettled([browser?.close()]);
    closing.push(...(await Promise.allSettled([service?.close()])));
    const failed = closing.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  });

  it('signs in as admin on the login page, creates a tenant with Try it out, picks it and shows its DID', async () => {
    const base = service.publicBaseUrl;

    await step(page, 'open', async () => {
      const response = await page.goto(`${base}/ctrl/swagger-ui`);
      expect(response?.status()).toBe(200);
      const redirect = response?.request().redirectedFrom();
      expect(redirect?.url()).toBe(`${base}/ctrl/swagger-ui`);
      expect((await redirect?.response())?.status()).toBe(301);
      expect(page.url()).toBe(`${base}/ctrl/swagger-ui/`);
      await authorizeButton(page).waitFor();
      expect(await page.title()).toBe('Agent service API');
      // What the service does, and what to do first.
      const description = await page.locator('.information-container .description').innerText();
      expect(description).toContain('W3C Verifiable Credentials');
      expect(description).toContain('webhooks');
      // Before sign-in the Tenant box is there already, and says what to do.
      await page.locator('#agent-tenant-note', { hasText: 'sign in' }).waitFor();
      expect(await page.locator('#agent-tenant-select').isDisabled()).toBe(true);
      expect(await page.locator('#agent-tenant-note').innerText()).toMatch(/Authorize/);
      await page.screenshot({ path: join(artifacts, 'before-sign-in.png') });
    });

    await step(page, 'sign-in', async () => {
      await signIn(page, 'admin', base, join(artifacts, 'login-page.png'));
      await page.screenshot({ path: join(artifacts, 'authorized-dialog.png') });
      await closeDialog(page);
      expect(await authorizeButton(page).getAttribute('class')).toContain('locked');
      // The picker looks for a new sign-in every second; with one tenant to act for it picks that one.
      await page.waitForFunction(
        `document.querySelector('#agent-tenant-select')?.value === ${JSON.stringify(existingTenant)}`,
        undefined,
        { timeout: patience },
      );
    });

    await step(page, 'create-tenant', async () => {
      const create = await openOperation(page, 'Tenants-createTenant');
      await create.locator('tr[data-param-name="id"] input').fill(tenant);
      await create.locator('tr[data-param-name="label"] input').fill('Swagger UI tenant');
      // Known issue (see the report): Try it out pre-fills the optional imageUrl and the optional JSON
      // body with the examples (id "acme"), and a body that disagrees with the query is a 400
      // QUERY_BODY_MISMATCH. A user has to empty both to create a tenant from the query parameters.
      await create.locator('tr[data-param-name="imageUrl"] input').fill('');
      await create.locator('textarea.body-param__text').fill('');
      const { status, body } = await execute(create);
      expect({ status, body }).toMatchObject({
        status: 201,
        body: {
          id: tenant,
          label: 'Swagger UI tenant',
          did: expect.stringMatching(/^did:key:z6Mk/),
        },
      });
      created = body as Tenant;
      await create.locator('.opblock-summary').first().click(); // collapse again
    });

    await step(page, 'pick-tenant', async () => {
      expect(await pickerOptions(page, tenant)).toEqual(['', existingTenant, tenant]);
      // It chose the only tenant there was at sign-in by itself; the new one has to be picked.
      expect(await page.locator('#agent-tenant-select').inputValue()).toBe(existingTenant);
      await page.locator('#agent-tenant-select').selectOption(tenant);
      expect(await page.locator('#agent-tenant-note').innerText()).toContain(
        `x-tenant-id: ${tenant}`,
      );
    });

    await step(page, 'get-did', async () => {
      const getDid = await openOperation(page, 'DID-getDid');
      const { status, body } = await execute(getDid);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: created.did, public: true, method: 'key' });
      expect((body as { id: string }).id).toMatch(/^did:key:z6Mk/);
      // The request the UI sent carried the picked tenant (the curl box shows it).
      expect(await getDid.locator('.curl-command').innerText()).toContain(`x-tenant-id: ${tenant}`);
      // From the tenant box down to the end of the server response: the picked tenant, the request
      // (curl with x-tenant-id) and the DID in the response body.
      const top = await page.locator('#agent-tenant-picker').boundingBox();
      const bottom = await getDid.locator('.live-responses-table').boundingBox();
      if (top === null || bottom === null) throw new Error('tenant box or response not rendered');
      // boundingBox() is relative to the viewport, a full-page clip to the page.
      const scrollY = Number(await page.evaluate('window.scrollY'));
      await page.screenshot({
        path: join(artifacts, 'did-result.png'),
        fullPage: true,
        clip: { x: 0, y: top.y + scrollY, width: 1280, height: bottom.y + bottom.height - top.y },
      });
    });

    expect(pageErrors).toEqual([]);
  });

  it('issues a credential with Try it out as it stands, verifies it, revokes it and sees it fail', async () => {
    await step(page, 'issue-credential', async () => {
      const issueOperation = await openOperation(page, 'Credentials-issueCredential');
      // The example body as the UI pre-fills it: no edit.
      const { status, body } = await execute(issueOperation);
      expect(status).toBe(201);
      const credential = (body as { verifiableCredential: Record<string, unknown> })
        .verifiableCredential;
      expect(credential).toMatchObject({
        issuer: created.did,
        proof: { cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'assertionMethod' },
        credentialStatus: { statusPurpose: 'revocation' },
      });
      await page.screenshot({ path: join(artifacts, 'credential-issued.png') });
      await issueOperation.locator('.opblock-summary').first().click();

      const verifyOperation = await openOperation(page, 'Credentials-verifyCredential');
      const verifyBody = verifyOperation.locator('textarea.body-param__text');
      await verifyBody.fill(JSON.stringify({ verifiableCredential: credential }));
      expect(await execute(verifyOperation)).toMatchObject({
        status: 200,
        body: { verified: true },
      });

      const statusOperation = await openOperation(page, 'Credentials-updateCredentialStatus');
      await statusOperation.locator('textarea.body-param__text').fill(
        JSON.stringify({
          credentialId: credential.id,
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        }),
      );
      await statusOperation.locator('button.execute').click();
      const answered = statusOperation.locator('.live-responses-table tbody tr.response').first();
      await answered.waitFor();
      expect((await answered.locator('.response-col_status').innerText()).trim()).toBe('204');

      // Executed again: wait for the new answer to replace the 200 before reading it.
      await verifyOperation.locator('button.execute').click();
      const refusedRow = verifyOperation.locator('.live-responses-table tbody tr.response', {
        has: page.locator('.response-col_status', { hasText: '422' }),
      });
      await refusedRow.waitFor();
      const refused = JSON.parse(
        await refusedRow.locator('.response-col_description pre.microlight').first().innerText(),
      ) as unknown;
      expect(refused).toMatchObject({
        code: 'CREDENTIAL_NOT_VERIFIED',
        verified: false,
        problemDetails: [{ check: 'status', detail: 'the credential is revoked' }],
      });
      await page.screenshot({ path: join(artifacts, 'credential-revoked.png'), fullPage: true });
      for (const operation of [verifyOperation, statusOperation]) {
        await operation.locator('.opblock-summary').first().click();
      }
    });
    expect(pageErrors).toEqual([]);
  });

  it('keeps the authorization and the picked tenant across a reload (persistAuthorization)', async () => {
    await step(page, 'reload', async () => {
      await page.reload();
      await authorizeButton(page).waitFor();
      expect(await authorizeButton(page).getAttribute('class')).toContain('locked');
      await pickerOptions(page, tenant);
      expect(await page.locator('#agent-tenant-select').inputValue()).toBe(tenant);
      // Still authorized: a call works without signing in again.
      const getDid = await openOperation(page, 'DID-getDid');
      const { status, body } = await execute(getDid);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: created.did });
      // Choosing no tenant removes the header again: the call says what is missing.
      await page.locator('#agent-tenant-select').selectOption('');
      const withoutTenant = await execute(getDid);
      expect(withoutTenant).toMatchObject({
        status: 400,
        body: { code: 'TENANT_HEADER_MISSING' },
      });
    });
    expect(pageErrors).toEqual([]);
  });

  it('offers a demo user only the tenants in their token', async () => {
    // demo is agent-user for tenant "demo" only (realm file): make it exist next to another one.
    const demoTenant = await service.request<Tenant>('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'demo', label: 'Demo' },
    });
    expect(demoTenant.status).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(patience);
    try {
      const demoPage = await context.newPage();
      await step(demoPage, 'demo', async () => {
        await demoPage.goto(`${service.publicBaseUrl}/ctrl/swagger-ui/`);
        await signIn(demoPage, 'demo', service.publicBaseUrl);
        await closeDialog(demoPage);
        // Only one tenant: it is chosen for them.
        expect(await pickerOptions(demoPage, 'demo')).toEqual(['', 'demo']);
        expect(await demoPage.locator('#agent-tenant-select').inputValue()).toBe('demo');
        await demoPage.screenshot({ path: join(artifacts, 'demo-picker.png') });
        const getDid = await openOperation(demoPage, 'DID-getDid');
        const { status, body } = await execute(getDid);
        expect(status).toBe(200);
        expect(body).toMatchObject({ id: demoTenant.body.did });
      });
    } finally {
      await context.close();
    }
  });
  it('tells the user when the service no longer accepts their token', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(patience);
    try {
      const stalePage = await context.newPage();
      await step(stalePage, 'stale-token', async () => {
        await stalePage.goto(`${service.publicBaseUrl}/ctrl/swagger-ui/`);
        await authorizeButton(stalePage).click();
        // A token the service refuses, as an expired one is (access tokens last 10 minutes).
        const bearer = schemeSection(stalePage, 'bearer');
        await bearer
          .locator('input')
          .first()
          .fill('eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjF9.c2lnbmF0dXJl');
        await bearer.locator('button.authorize').click();
        await closeDialog(stalePage);
        const note = stalePage.locator('#agent-tenant-note', { hasText: 'sign-in has expired' });
        await note.waitFor();
        expect(await note.textContent()).toMatch(/Authorize/);
      });
    } finally {
      await context.close();
    }
  });
});
