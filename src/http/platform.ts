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
    publicAppUrl: (env.PUBLIC_APP_URL || 'http://localhost:3000').replace(/\/$/, ''),
    challengeSources,
    challengeSourcesUpdatedAt: updated,
  };
}

export function rateLimitFromEnv(env: NodeJS.ProcessEnv = process.env): RateLimitConfig {
  const perMinute = env.RATE_LIMIT_PER_MINUTE ? Number(env.RATE_LIMIT_PER_MINUTE) : 120;
  if (!Number.isInteger(perMinute) || perMinute < 1) throw new Error('RATE_LIMIT_PER_MINUTE: a positive integer');
  return { perMinute, enforce: env.RATE_LIMIT_ENFORCE === '1' };
}
