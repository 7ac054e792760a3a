// Sign-in and sign-out in a real browser against the real service: the code read from the file
// mail sender, the return to the URL first asked for, the session only in an HttpOnly cookie, a wrong code, a user
// without organization, a session lost mid-use, and sign-out revoking the session. axe-core on each view.
import type { BrowserContext, Page } from 'playwright-core';
import { createOrgWithOwner } from '../../src/storage/accounts';
import { readMail } from '../helpers/context';
import { checkView, sessionContext, startWebApp, watchErrors, type WebApp } from './helpers';

let app: WebApp;
let ctx: BrowserContext;
let page: Page;
const OWNER = `owner-${Date.now()}@example.test`;

beforeAll(async () => {
  app = await startWebApp();
  await createOrgWithOwner(app.t.store, 'Sign-in Org', OWNER);
  ctx = await sessionContext(app);
  page = await ctx.newPage();
  watchErrors(page);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

/** Requests a code for `email` on the sign-in view and returns it as mailed. */
async function requestCode(p: Page, email: string): Promise<string> {
  const before = await readMail(app.mailDir, email, { timeoutMs: 1 }).then(
    (m) => m.file,
    () => undefined,
  );
  await p.getByLabel('Email address').fill(email);
  await p.getByRole('button', { name: 'Send me a code' }).click();
  await p.getByLabel('Code from the email').waitFor();
  const mail = await readMail(app.mailDir, email, { after: before });
  expect(mail.code).toMatch(/^\d{8}$/);
  return mail.code!;
}

const sessionCookie = async () => (await ctx.cookies()).find((c) => c.name === '__Host-svc_session');

test('a signed-out visit goes to sign-in and, after the mailed code, back to the page asked for', async () => {
  await page.goto(`${app.baseUrl}/app/projects?x=1`);
  await page.waitForURL(/\/app\/sign-in\?next=/);
  expect(new URL(page.url()).searchParams.get('next')).toBe('/app/projects?x=1');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await checkView(page, 'sign-in');
  const code = await requestCode(page, OWNER);
  await checkView(page, 'sign-in-code');
  // a wrong code first: refused, in words, and the form stays
  await page.getByLabel('Code from the email').fill(code === '00000000' ? '11111111' : '00000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('alert').textContent()).toMatch(/wrong, expired or already used/);
  await page.getByLabel('Code from the email').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.baseUrl}/app/projects?x=1`);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  expect(await page.getByText(OWNER).count()).toBeGreaterThan(0);
  // the session lives only in the HttpOnly cookie: nothing readable by scripts, nothing stored
  const cookie = await sessionCookie();
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
  expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0]);
});

test('sign-out revokes the session: the app goes to sign-in and the old cookie no longer works', async () => {
  await page.goto(`${app.baseUrl}/app/projects`);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  const token = (await sessionCookie())!.value;
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/app\/sign-in/);
  expect(await sessionCookie()).toBeUndefined();
  const res = await app.t.api.get('/v1/me').set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(401);
  await page.goto(`${app.baseUrl}/app/projects`);
  await page.waitForURL(/\/app\/sign-in\?next=/);
});

test('a session lost mid-use (any 401) goes to sign-in, keeping the URL; next never leaves the app', async () => {
  await page.goto(`${app.baseUrl}/app/sign-in`);
  const code = await requestCode(page, OWNER);
  await page.getByLabel('Code from the email').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.baseUrl}/app/`);
  await page.getByText('No project yet').waitFor(); // the view's own request answered before the cookie goes
  await ctx.clearCookies({ name: '__Host-svc_session' });
  await page.getByRole('link', { name: 'Projects' }).click(); // a client-side navigation whose request answers 401
  await page.waitForURL(/\/app\/sign-in\?next=%2Fapp%2Fprojects&reason=expired$/);
  // the page says why
  expect(await page.getByRole('status').filter({ hasText: 'Your session has ended' }).count()).toBe(1);
  // a next pointing elsewhere is ignored after sign-in
  await page.goto(`${app.baseUrl}/app/sign-in?next=${encodeURIComponent('//evil.example/app/')}`);
  const again = await requestCode(page, OWNER);
  await page.getByLabel('Code from the email').fill(again);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.baseUrl}/app/`);
});

test('a new email signs in to a page saying it has no organization yet', async () => {
  const c = await sessionContext(app);
  const p = await c.newPage();
  const email = `newcomer-${Date.now()}@example.test`;
  await p.goto(`${app.baseUrl}/app/`);
  await p.waitForURL(/\/app\/sign-in/);
  const code = await requestCode(p, email);
  await p.getByLabel('Code from the email').fill(code);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'No organization yet' }).waitFor();
  expect(await p.getByText(email).count()).toBe(1);
  await checkView(p, 'no-organization');
  await p.getByRole('button', { name: 'Sign out' }).click();
  await p.waitForURL(/\/app\/sign-in/);
  await c.close();
});

test('keyboard only: sign in (Tab to the field, type, Enter twice) and sign out, with a visible focus on each control', async () => {
  const kctx = await sessionContext(app);
  const p = await kctx.newPage();
  try {
    await p.goto(`${app.baseUrl}/app/`);
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    /**
     * Tabs until the focused element matches, asserting it shows a focus ring; returns its accessible label. Sign out
     * comes after the home page's controls and the navigation's links: a few dozen stops at most.
     */
    const tabTo = async (test: (el: { tag: string; label: string }) => boolean, what: string) => {
      for (let i = 0; i < 40; i++) {
        await p.keyboard.press('Tab');
        const el = await p.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          const label =
            (a as HTMLInputElement | null)?.labels?.[0]?.textContent ??
            a?.getAttribute('aria-label') ??
            a?.textContent ??
            '';
          return {
            tag: a?.tagName.toLowerCase() ?? '',
            label: label.trim(),
            outline: a ? getComputedStyle(a).outlineStyle : 'none',
          };
        });
        if (test(el)) {
          expect(el.outline).not.toBe('none');
          return;
        }
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo((e) => e.tag === 'input' && e.label === 'Email address', 'the email field');
    await p.keyboard.type(OWNER);
    const before = await readMail(app.mailDir, OWNER, { timeoutMs: 1 }).then(
      (m) => m.file,
      () => undefined,
    );
    await p.keyboard.press('Enter');
    await p.getByLabel('Code from the email').waitFor();
    const { code } = await readMail(app.mailDir, OWNER, { after: before });
    // the code field takes the focus, or is the next stop
    if (
      !(await p.evaluate(
        () =>
          (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent?.trim() ===
          'Code from the email',
      ))
    ) {
      await tabTo((e) => e.label === 'Code from the email', 'the code field');
    }
    await p.keyboard.type(code!);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await tabTo((e) => e.tag === 'button' && e.label === 'Sign out', 'Sign out');
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
  } finally {
    await kctx.close();
  }
});
