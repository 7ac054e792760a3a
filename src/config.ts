// Every setting the service reads, in one place, from the environment (documented in README.md).
import path from 'node:path';
import fs from 'node:fs';
import { DEFAULT_WINDOWS, type FleetWindows } from './domain/hosts/status';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  mongoUri: string | undefined;
  mongoDb: string;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  taskQueue: string;
  logLevel: string;
  /** Requests whose body is bigger are refused while streaming. */
  maxBodyBytes: number;
  /** How often the sweeper looks for queued scans whose workflow was never started. */
  sweepIntervalMs: number;
  /** Threads of the worker's graph-walk pool (0 = the machine's cores). */
  poolThreads: number;
  /** How long an API request waits for an unreachable database before it is answered 503 service_unavailable. */
  apiDbWaitMs: number;
}

/** Loopback unless told otherwise: a laptop's API is not for the network. Containers set HOST=0.0.0.0. */
export const DEFAULT_HOST = '127.0.0.1';

/** A whole number setting (at least `min`, 0 by default), or the fallback when unset or empty; anything else throws. */
export function envInt(
  name: string,
  fallback: number,
  { min = 0, env = process.env }: { min?: number; env?: NodeJS.ProcessEnv } = {},
): number {
  const v = env[name]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`${name} must be a whole number of at least ${min}, got "${v}"`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration setting in milliseconds: a whole number of seconds ("900"), or a whole number with a unit ms, s, m or h
 * ("15m", "500ms"); the fallback when unset or empty. Anything else, zero, or more than `maxMs` throws, naming it.
 */
export function envDuration(
  name: string,
  fallbackMs: number,
  { maxMs = 30 * 24 * 3_600_000, env = process.env }: { maxMs?: number; env?: NodeJS.ProcessEnv } = {},
): number {
  const v = env[name]?.trim();
  if (!v) return fallbackMs;
  const m = /^(\d{1,15})(ms|s|m|h)?$/.exec(v);
  const ms = m ? Number(m[1]) * DURATION_UNITS[m[2] ?? 's'] : NaN;
  if (!(ms >= 1 && ms <= maxMs))
    throw new Error(
      `${name} must be a positive duration of at most ${maxMs / 3_600_000} h: seconds ("900") or a number with a unit ms, s, m or h ("15m"), got "${v}"`,
    );
  return ms;
}

/**
 * The windows of hosts and gateways: HOST_EXPIRY and GATEWAY_EXPIRY (default 15 minutes, at most 7 days). The
 * 7 days a pending gateway has to be approved are the contract's, not a setting.
 */
export function fleetWindowsFromEnv(env: NodeJS.ProcessEnv = process.env): FleetWindows {
  const maxMs = 7 * 24 * 3_600_000;
  return {
    hostExpiryMs: envDuration('HOST_EXPIRY', DEFAULT_WINDOWS.hostExpiryMs, { env, maxMs }),
    gatewayExpiryMs: envDuration('GATEWAY_EXPIRY', DEFAULT_WINDOWS.gatewayExpiryMs, { env, maxMs }),
    pendingGatewayMs: DEFAULT_WINDOWS.pendingGatewayMs,
  };
}

/** runtime.json written by `npm start`: lets `npm run api`, `npm run worker` and the CLI find the local infra. */
function runtimeFile(dataDir: string): Record<string, string> {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8'));
    // A runtime.json left by a killed `npm start` names servers that are gone: ignore it.
    if (typeof r.pid === 'number') process.kill(r.pid, 0);
    return r;
  } catch {
    return {};
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || '.data');
  const runtime = runtimeFile(dataDir);
  return {
    port: envInt('PORT', 8080, { env }),
    host: env.HOST || DEFAULT_HOST,
    dataDir,
    mongoUri: env.MONGODB_URI || runtime.mongoUri,
    mongoDb: env.MONGODB_DB || 'scanner',
    temporalAddress: env.TEMPORAL_ADDRESS || runtime.temporalAddress,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'scans',
    logLevel: env.LOG_LEVEL || 'info',
    maxBodyBytes: 10 * 1024 * 1024,
    sweepIntervalMs: envInt('SWEEP_INTERVAL_MS', 5000, { env }),
    poolThreads: envInt('POOL_THREADS', 0, { env }),
    apiDbWaitMs: envInt('API_DB_WAIT_MS', 5000, { env }),
  };
}

export function requireMongoUri(c: Config): string {
  if (!c.mongoUri)
    throw new Error(
      'MONGODB_URI is not set and no runtime.json was found under DATA_DIR (it is private to the user who ran `npm start`): run `npm start` or set MONGODB_URI',
    );
  return c.mongoUri;
}

export function requireTemporalAddress(c: Config): string {
  if (!c.temporalAddress)
    throw new Error(
      'TEMPORAL_ADDRESS is not set and no runtime.json was found under DATA_DIR (it is private to the user who ran `npm start`): run `npm start` or set TEMPORAL_ADDRESS',
    );
  return c.temporalAddress;
}
