// A real API over the test run's MongoDB-wire server and Temporal server, on a database of its own per test file.
import request from 'supertest';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/http/app';
import type { AppDeps, PlatformConfig } from '../../src/http/deps';
import type { ScanWaiter } from '../../src/ports';
import { RateLimiter, type RateLimitConfig } from '../../src/http/rate-limit';
import { createLogger } from '../../src/logger';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { createOrgWithOwner, createSession, addMember } from '../../src/storage/accounts';
import { createApiKey } from '../../src/storage/api-keys';
import type { Role } from '../../src/domain/roles';
import { cursorCodec, loadCursorSecret } from '../../src/storage/cursors';
import { connectStore, type Store, type StoreOptions } from '../../src/storage/mongo';
import { prepareStore } from '../../src/storage/migrations';
import { FileMailSender } from '../../src/infra/mail';
import {
  connectTemporal,
  scanRuns,
  scanStarter,
  temporalReadiness,
  type TemporalHandle,
} from '../../src/temporal/client';
import { apiScanWaiter } from '../../src/scan-waiter';
import type { ScanWatchOptions } from '../../src/storage/scan-watch';
import { mcpScanStarter } from '../../src/temporal/mcp';
import { triageReconciler } from '../../src/temporal/triage-reconcile';
import { scanEvents } from '../../src/temporal/events';
import type { ScanSweep } from '../../src/sweepers/scans';

export interface TestContext {
  store: Store;
  temporal: TemporalHandle;
  server: http.Server;
  api: ReturnType<typeof request>;
  taskQueue: string;
  /** Pushes this API's pending rate-limit counts to MongoDB and reads the shared totals back. */
  flushRateLimits(): Promise<void>;
  /** The app's ?wait= waiter (close() ends pending waits, as SIGTERM does in the API process). */
  waiter: ScanWaiter;
  /** dropDatabase: false when another context shares the database. */
  close(dropDatabase?: boolean): Promise<void>;
}

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(`${name} is not set: the jest global setup starts the infrastructure (unset SCANNER_SKIP_INFRA)`);
  return v;
}

export async function testContext(
  opts: {
    taskQueue?: string;
    dbName?: string;
    mongoUri?: string;
    storeOptions?: StoreOptions;
    rateLimit?: RateLimitConfig;
    platform?: PlatformConfig;
    /** Sign-in codes are mailed as JSON files into this directory (readMail below reads them). */
    mailDir?: string;
    signInLimits?: { perEmail: number; perAddress: number };
    /** The ?wait= watch of the scan document (src/storage/scan-watch.ts); its defaults otherwise. */
    watch?: ScanWatchOptions;
    /** The webhook routes' secret box and destination policy (default: from the environment). */
    webhooks?: AppDeps['webhooks'];
  } = {},
): Promise<TestContext> {
  const dbName = opts.dbName ?? `t_${randomBytes(6).toString('hex')}`;
  const store = await connectStore(opts.mongoUri ?? requireEnv('MONGODB_URI'), dbName, opts.storeOptions);
  await prepareStore(store);
  const taskQueue = opts.taskQueue ?? `tq-${randomBytes(6).toString('hex')}`;
  const temporal = await connectTemporal(requireEnv('TEMPORAL_ADDRESS'), 'default', taskQueue);
  const logger = createLogger('test', process.env.TEST_LOG_LEVEL || 'silent');
  const uploads = uploadPreparer(1);
  const starter = scanStarter(temporal, logger);
  // MCP scans uploaded here start their workflow on this context's task queue, as the API process does.
  const mcp = mcpScanStarter(temporal, logger);
  // Triage rule changes ask for the organization's reconciliation on this context's task queue, as the API does.
  const triage = triageReconciler(temporal, logger);
  const waiter = apiScanWaiter(temporal, store, opts.watch);
  const rateLimiter = new RateLimiter(store, opts.rateLimit ?? { perMinute: 120, enforce: false }, logger);
  const app = createApp({
    store,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter,
    mcp,
    triage,
    waiter,
    readiness: temporalReadiness(temporal),
    logger,
    maxBodyBytes: 10 * 1024 * 1024,
    uploads,
    rateLimiter,
    platform: opts.platform,
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
    ...(opts.mailDir
      ? { signIn: { mail: new FileMailSender(opts.mailDir), codeKey: randomBytes(32), limits: opts.signInLimits } }
      : {}),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  return {
    store,
    temporal,
    server,
    api: request(server),
    taskQueue,
    flushRateLimits: () => rateLimiter.flush(),
    waiter,
    async close(dropDatabase = true) {
      waiter.close();
      await new Promise<void>((r) => server.close(() => r()));
      await starter.drain();
      await mcp.drain();
      await triage.drain();
      await rateLimiter.close().catch(() => undefined);
      await uploads.close();
      await temporal.connection.close();
      if (dropDatabase) await store.db.dropDatabase().catch(() => undefined);
      await store.close();
    },
  };
}

/**
 * A real API over `store` with no Temporal behind it (workflow starts succeed and do nothing, readiness says no), for
 * tests of the HTTP layer alone: it listens on a free loopback port.
 */
export async function appWithoutTemporal(
  store: Store,
  deps: Pick<AppDeps, 'uploads'> & Partial<AppDeps>,
): Promise<{ server: http.Server; api: ReturnType<typeof request> }> {
  const app = createApp({
    store,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter: { start: async () => true, drain: async () => undefined },
    readiness: { temporal: async () => ({ ok: false, detail: 'not used' }) },
    logger: createLogger('test', process.env.TEST_LOG_LEVEL || 'silent'),
    maxBodyBytes: 10 * 1024 * 1024,
    ...deps,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  return { server, api: request(server) };
}

export interface Org {
  orgId: string;
  ownerToken: string;
  memberId: string;
  session(role: Role): Promise<string>;
  key(scopes: string[], projects?: 'all' | string[]): Promise<string>;
}

let counter = 0;

export async function newOrg(store: Store, name = 'acme'): Promise<Org> {
  const tag = `${Date.now()}${counter++}`;
  const { org, user, member } = await createOrgWithOwner(store, name, `owner-${tag}@example.test`);
  const { token } = await createSession(store, user._id);
  return {
    orgId: org._id,
    ownerToken: token,
    memberId: member._id,
    async session(role) {
      const m = await addMember(store, org._id, `${role}-${tag}-${counter++}@example.test`, role);
      return (await createSession(store, m.userId)).token;
    },
    async key(scopes, projects = 'all') {
      return (
        await createApiKey(store, {
          orgId: org._id,
          name: 'test',
          scopes,
          projects,
          createdBy: member._id,
          expiresAt: null,
        })
      ).secret;
    },
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export interface SentMail {
  to: string;
  subject: string;
  text: string;
  code: string | null;
}

/**
 * The newest message to `to` in a file mail directory, waiting for it (codes are mailed after the 202), newer than
 * `after` (a file name from an earlier call) when given. Resolves with the message and its file name.
 */
export async function readMail(
  dir: string,
  to: string,
  o: { after?: string; timeoutMs?: number } = {},
): Promise<SentMail & { file: string }> {
  const fs = await import('node:fs/promises');
  const deadline = Date.now() + (o.timeoutMs ?? 10_000);
  for (;;) {
    const names = (await fs.readdir(dir).catch(() => [] as string[]))
      .filter((n) => n.endsWith('.json') && (!o.after || n > o.after))
      .sort()
      .reverse();
    for (const name of names) {
      const m = JSON.parse(await fs.readFile(`${dir}/${name}`, 'utf8')) as SentMail;
      if (m.to === to) return { ...m, file: name };
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} in ${dir}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The API's scan sweeper over this context's store and Temporal, as src/main.ts wires it (quiet logger). */
export function scanSweep(t: TestContext, opts: { graceMs?: number; staleMs?: number } = {}): ScanSweep {
  const logger = createLogger('sweeper', 'silent');
  const events = scanEvents({ store: t.store, logger, taskQueue: t.temporal.taskQueue, client: t.temporal.client });
  return { store: t.store, runs: scanRuns(t.temporal), events, logger, ...opts };
}

/**
 * Resolves once the scan's workflow has closed. A `?wait=` answer may come a moment before it (the watch of the scan
 * document sees the terminal write; the workflow's last activity then clears the scan's intermediate work): a test
 * that checks that nothing intermediate is left waits for this first.
 */
export async function workflowClosed(t: TestContext, scanId: string): Promise<void> {
  // The upload route answers 201 once the scan is stored and starts the workflow right after, off the response path:
  // a test that asks at once may find no workflow yet, so not found is retried (for at most 60 s).
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await t.temporal.client.workflow.getHandle(scanId).result();
      return;
    } catch (err) {
      if (err instanceof WorkflowFailedError) return; // a failed scan's workflow fails: closed all the same
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
