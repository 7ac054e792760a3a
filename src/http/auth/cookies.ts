// The browser credentials of the web app: the session cookie and the sign-in binding cookie, and when a session
// cookie counts as a credential. Bearer credentials are in authenticate.ts; this file only decides about cookies.
import type { Context } from 'koa';

/** The session of the web app: a svc_ses_ token, HttpOnly, Secure, SameSite=Lax, Path=/. */
export const SESSION_COOKIE = '__Host-svc_session';
/**
 * Binds a sign-in code to the browser that asked for it. SameSite=Strict: a cross-site page cannot make a browser
 * submit a code under its binding (login CSRF: signing the victim into the attacker's account).
 */
export const LOGIN_COOKIE = '__Host-svc_login';

const SESSION_TOKEN = /^svc_ses_[A-Za-z0-9_-]{16,128}$/;
const BINDING_VALUE = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * One Set-Cookie value with the `__Host-` prefix's requirements (Secure, Path=/, no Domain). Browsers accept Secure
 * cookies from http://localhost; elsewhere the app must be served over HTTPS (main.ts warns at start).
 */
export function cookieHeader(
  name: string,
  value: string,
  o: { maxAgeSeconds: number; sameSite: 'Lax' | 'Strict' },
): string {
  const maxAge = Math.max(0, Math.floor(o.maxAgeSeconds));
  const expires = maxAge === 0 ? 'Thu, 01 Jan 1970 00:00:00 GMT' : new Date(Date.now() + maxAge * 1000).toUTCString();
  return `${name}=${value}; HttpOnly; Secure; SameSite=${o.sameSite}; Path=/; Max-Age=${maxAge}; Expires=${expires}`;
}

export function setCookie(
  ctx: Context,
  name: string,
  value: string,
  o: { maxAgeSeconds: number; sameSite: 'Lax' | 'Strict' },
): void {
  ctx.append('Set-Cookie', cookieHeader(name, value, o));
}

export function clearCookie(ctx: Context, name: string, sameSite: 'Lax' | 'Strict'): void {
  setCookie(ctx, name, '', { maxAgeSeconds: 0, sameSite });
}

/** The binding cookie's value when it has the shape newBindingValue() gives, else null. */
export function loginBinding(ctx: Context): string | null {
  const v = ctx.cookies.get(LOGIN_COOKIE);
  return v && BINDING_VALUE.test(v) ? v : null;
}

export type CookieCredential = { token: string } | { ignored: string } | null;

/**
 * The session cookie as a credential of this request, or why it is ignored, or null when none was
 * sent. It counts only on /v1, only with `X-Svc-App: 1`, and for a request other than GET/HEAD only when the browser
 * says it is same-origin (`Sec-Fetch-Site: same-origin`) or its Origin is the app's. A cross-site page can make a
 * browser send the cookie (SameSite=Lax allows top-level GET navigations) but cannot add the custom header without a
 * CORS preflight, which /v1 never grants.
 */
export function cookieCredential(ctx: Context, appOrigin: string): CookieCredential {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token) return null;
  if (!(ctx.path === '/v1' || ctx.path.startsWith('/v1/'))) return { ignored: 'session cookies count on /v1 only' };
  if (ctx.get('X-Svc-App') !== '1') return { ignored: 'a session cookie counts only with the header X-Svc-App: 1' };
  if (!SAFE_METHODS.has(ctx.method)) {
    const sameOrigin = ctx.get('Sec-Fetch-Site') === 'same-origin' || ctx.get('Origin') === appOrigin;
    if (!sameOrigin)
      return {
        ignored: `a session cookie counts on ${ctx.method} only from the app's origin (Sec-Fetch-Site: same-origin or Origin: ${appOrigin})`,
      };
  }
  if (!SESSION_TOKEN.test(token)) return { ignored: 'malformed session cookie' };
  return { token };
}

/** The origin (scheme://host[:port]) of PUBLIC_APP_URL. */
export function originOf(url: string): string {
  return new URL(url).origin;
}
