// Platform settings of the API process from the environment: invitation links, the published challenge-source
// ranges, rate limits. Invalid values stop the process at start, never at the first request.
import net from 'node:net';
import type { PlatformConfig } from './deps';
import type { RateLimitConfig } from './rate-limit';

/** A CIDR in IPv4 (a.b.c.d/0-32) or IPv6 (x::y/0-128) form. */
export function isCidr(s: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) return false;
  const family = net.isIP(m[1]);
  const bits = Number(m[2]);
  return (family === 4 && bits <= 32) || (family === 6 && bits <= 128);
}

export function platformFromEnv(env: NodeJS.ProcessEnv = process.env, loadedAt = new Date()): PlatformConfig {
  const challengeSources = (env.CHALLENGE_SOURCES ?? '').split(/[\s,]+/).filter(Boolean);
  const bad = challengeSources.find((c) => !isCidr(c));
  if (bad) throw new Error(`CHALLENGE_SOURCES: ${JSON.stringify(bad)} is not an IPv4 or IPv6 CIDR`);
  const updated = env.CHALLENGE_SOURCES_UPDATED_AT ? new Date(env.CHALLENGE_SOURCES_UPDATED_AT) : loadedAt;
  if (Number.isNaN(updated.getTime())) throw new Error('CHALLENGE_SOURCES_UPDATED_AT: not a timestamp');
  return {
    publicAppUrl: publicAppUrlFromEnv(env),
    challengeSources,
    challengeSourcesUpdatedAt: updated,
  };
}

const LOOPBACK_HOSTS = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * PUBLIC_APP_URL: where people open the web app, the base of invitation links, and whose origin a
 * cookie-authenticated write must come from. Default: the app's own address, `http://localhost:<PORT>/app`. Must be
 * an absolute http(s) URL without query, fragment or credentials; a trailing slash is dropped.
 */
export function publicAppUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.PUBLIC_APP_URL?.trim();
  if (!raw) return `http://localhost:${env.PORT?.trim() || '8080'}/app`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `PUBLIC_APP_URL: ${JSON.stringify(raw)} is not an absolute URL (for example https://scanner.example.com/app)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('PUBLIC_APP_URL: must be an http:// or https:// URL');
  if (url.search || url.hash || raw.includes('#') || raw.includes('?'))
    throw new Error('PUBLIC_APP_URL: must not have a query or fragment');
  if (url.username || url.password) throw new Error('PUBLIC_APP_URL: must not hold credentials');
  return url.toString().replace(/\/+$/, '');
}

/**
 * The start-up warning about PUBLIC_APP_URL: the session cookies are Secure, which browsers honour over plain http only
 * on loopback; anywhere else people could not stay signed in (and codes and cookies would cross the network in clear).
 */
export function insecureAppUrlWarning(publicAppUrl: string): string | null {
  const url = new URL(publicAppUrl);
  if (url.protocol !== 'http:' || LOOPBACK_HOSTS.test(url.hostname)) return null;
  return `PUBLIC_APP_URL ${publicAppUrl} is plain http on ${url.hostname}, which is not loopback: browsers keep the Secure session cookie only over HTTPS (or on localhost), so sign-in will not hold. Serve the app over HTTPS (e.g. behind a TLS-terminating proxy with TRUST_PROXY=1) and set PUBLIC_APP_URL to its https:// address.`;
}

export function rateLimitFromEnv(env: NodeJS.ProcessEnv = process.env): RateLimitConfig {
  const perMinute = env.RATE_LIMIT_PER_MINUTE ? Number(env.RATE_LIMIT_PER_MINUTE) : 120;
  if (!Number.isInteger(perMinute) || perMinute < 1) throw new Error('RATE_LIMIT_PER_MINUTE: a positive integer');
  return { perMinute, enforce: env.RATE_LIMIT_ENFORCE === '1' };
}
