// PUBLIC_APP_URL: the default follows PORT, bad values stop the start naming the setting, and the
// start-up warning fires for plain http anywhere but loopback.
import { insecureAppUrlWarning, platformFromEnv, publicAppUrlFromEnv } from '../../../src/http/platform';
import { cookieHeader, originOf } from '../../../src/http/auth/cookies';

test("defaults to the app's own address on PORT", () => {
  expect(publicAppUrlFromEnv({})).toBe('http://localhost:8080/app');
  expect(publicAppUrlFromEnv({ PORT: '9090' })).toBe('http://localhost:9090/app');
  expect(platformFromEnv({ PORT: '3001' }).publicAppUrl).toBe('http://localhost:3001/app');
  expect(publicAppUrlFromEnv({ PUBLIC_APP_URL: 'https://scanner.example.com/app/' })).toBe(
    'https://scanner.example.com/app',
  );
  expect(publicAppUrlFromEnv({ PUBLIC_APP_URL: ' https://scanner.example.com ' })).toBe('https://scanner.example.com');
});

test('malformed values throw, naming PUBLIC_APP_URL', () => {
  for (const v of [
    'scanner.example.com',
    'ftp://x.example/app',
    'https://x.example/app?a=1',
    'https://x.example/app#t',
    'https://u:p@x.example/app',
    'javascript:alert(1)',
  ]) {
    expect(() => publicAppUrlFromEnv({ PUBLIC_APP_URL: v })).toThrow(/PUBLIC_APP_URL/);
  }
});

test('the warning: plain http off loopback only', () => {
  for (const ok of [
    'http://localhost:8080/app',
    'http://127.0.0.1:8080/app',
    'http://127.1.2.3/app',
    'http://[::1]:8080/app',
    'http://scanner.localhost/app',
    'https://scanner.example.com/app',
    'https://10.0.0.5/app',
  ]) {
    expect(insecureAppUrlWarning(ok)).toBeNull();
  }
  for (const bad of [
    'http://scanner.example.com/app',
    'http://10.0.0.5:8080/app',
    'http://[2001:db8::1]/app',
    'http://localhost.example.com/app',
  ]) {
    expect(insecureAppUrlWarning(bad)).toMatch(/PUBLIC_APP_URL .* plain http .*HTTPS/);
  }
});

test("cookies carry the __Host- requirements; the app origin is PUBLIC_APP_URL's", () => {
  expect(cookieHeader('__Host-svc_session', 'v', { maxAgeSeconds: 60, sameSite: 'Lax' })).toMatch(
    /^__Host-svc_session=v; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=60; Expires=/,
  );
  expect(cookieHeader('__Host-svc_login', '', { maxAgeSeconds: 0, sameSite: 'Strict' })).toBe(
    '__Host-svc_login=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
  );
  expect(originOf('https://scanner.example.com:8443/app')).toBe('https://scanner.example.com:8443');
  expect(originOf('http://localhost:8080/app')).toBe('http://localhost:8080');
});
