// `npx scanner ...`: operator commands. They find the database through MONGODB_URI or DATA_DIR/runtime.json.
import { parseArgs } from 'node:util';
import { importAdvisories, importFailed, type ImportReport } from '../advisories/import';
import { configuredSources, syncAdvisories } from '../advisories/sync';
import { loadConfig, requireMongoUri, requireTemporalAddress } from '../config';
import { createOrgWithOwner, createSession, findOrCreateUser, revokeSession } from '../storage/accounts';
import { connectStore, type Store } from '../storage/mongo';
import { prepareStore } from '../storage/migrations';
import type { IntelKind } from '../domain/intel/refused';
import type { IntelSyncFeed } from '../intel/sync';

const USAGE = `usage:
  scanner admin bootstrap --org NAME --email EMAIL [--json]   create an organization, its owner and a session
  scanner admin session --email EMAIL [--json]                issue a session (creates the user if needed)
  scanner admin session --revoke                              revoke the session whose token is on standard input
  scanner admin users [--json]                                users with their organization, role and active sessions
  scanner advisories import PATH...                           import OSV advisories (.json, .yaml, dirs, .zip)
  scanner advisories sync [SOURCE...]                         pull paths and https zip URLs (default: ADVISORY_SOURCES)
  scanner advisories schedule [--every 6h]                    create/update the advisory-refresh Temporal Schedule
  scanner intel import kev|epss PATH|URL [--json]             import CISA's KEV catalog or FIRST's EPSS scores (.csv[.gz])
          [--score-date YYYY-MM-DD]                           (EPSS: the date of a file without a score_date line)
  scanner intel sync [--json]                                 import INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE
  scanner intel schedule [--every 24h]                        create/update the intel-refresh Temporal Schedule
  scanner intel status [--json]                               the current KEV and EPSS generations
  scanner temporal setup                                      register the search attributes on a Temporal cluster
  scanner db show scan ID                                     a stored scan with its packed fields decoded (JSON)
  scanner db show findings ID                                 a completed scan's stored findings, decoded (JSON)`;

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await connectStore(requireMongoUri(config), config.mongoDb, { maxPoolSize: 4 });
  try {
    await prepareStore(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}

function print(json: boolean, value: unknown, text: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : text);
}

/** Lines for files and sources that failed and records rejected (50 of each at most); the exit code is the caller's. */
function problemLines(r: ImportReport): string[] {
  const some = (list: Array<{ source: string; reason: string }>, label: string) => [
    ...list.slice(0, 50).map((x) => `${label} ${x.source}: ${x.reason}`),
    ...(list.length > 50 ? [`${label} ... and ${list.length - 50} more`] : []),
  ];
  return [...some(r.failedSources, 'FAILED '), ...some(r.failedFiles, 'failed file'), ...some(r.rejected, 'rejected')];
}

/** A one-line summary on stderr when something failed, also with --json (stdout keeps the report). */
/**
 * After an import that made a new generation: the alerts of every project are re-matched against it in the background
 * (workflows/alert-rematch.ts), when the service's Temporal is known. Never fails the import: the import is done.
 */
async function rematchAlerts(generation: string | null, previous: string | null, json: boolean): Promise<void> {
  if (!generation || generation === previous) return;
  const config = loadConfig();
  if (!config.temporalAddress) {
    if (!json) console.error('alerts: not re-matched (TEMPORAL_ADDRESS unknown); the next tracked scans move them');
    return;
  }
  try {
    const { Client, Connection } = await import('@temporalio/client');
    const { startAlertRematch, alertRematchId } = await import('../temporal/alert-rematch');
    const connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: '5s' });
    try {
      await startAlertRematch(
        new Client({ connection, namespace: config.temporalNamespace }),
        config.taskQueue,
        generation,
      );
      if (!json)
        console.log(
          `alerts: re-matching every project's latest tracked snapshot (workflow ${alertRematchId(generation)})`,
        );
    } finally {
      await connection.close();
    }
  } catch (err) {
    console.error(`alerts: the re-match was not started: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function failureSummary(command: string, sources: number, files: number): void {
  if (sources + files) console.error(`advisories ${command}: ${sources} source(s) failed, ${files} file(s) failed`);
}

/** How to hand `admin session --revoke` its token: never as an argument, which ps and the shell history keep. */
const REVOKE_HINT =
  'scanner admin session --revoke reads the session token from standard input, never from the command line (ps and the shell history would show it): echo "$TOKEN" | npx scanner admin session --revoke';

/** The session token to revoke: one token on standard input, surrounding whitespace and the newline dropped. */
async function tokenFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new Error(REVOKE_HINT);
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.length > 4096) throw new Error('standard input: expected one session token, got more than 4 KB');
  }
  const token = text.trim();
  if (!token) throw new Error(`standard input is empty: ${REVOKE_HINT}`);
  if (/\s/.test(token)) throw new Error('standard input: expected one session token, got several words');
  if (!token.startsWith('svc_ses_')) throw new Error('standard input: not a session token (svc_ses_...)'); // never echoed
  return token;
}

/** One line of an import's or a sync's outcome. */
function intelLine(f: IntelSyncFeed): string {
  if (f.status === 'failed') return `FAILED  ${f.kind} ${f.source}: ${f.reason}`;
  const what =
    f.kind === 'kev'
      ? `catalogVersion ${f.catalogVersion}, released ${f.dateReleased}, ${f.count} entries`
      : `model ${f.modelVersion ?? '(none)'}, score date ${f.scoreDate}, ${f.count} scores`;
  return `${f.status === 'applied' ? 'applied' : 'unchanged'} ${f.kind} generation ${f.generation}: ${what}`;
}

/** `scanner intel …`; null for a command it does not know (the usage is printed). */
async function intelCommand(
  command: string | undefined,
  positionals: string[],
  values: { every?: string; 'score-date'?: string },
  json: boolean,
): Promise<number | null> {
  const { INTEL_KINDS } = await import('../domain/intel/refused');
  if (command === 'import') {
    const [kind, source] = positionals;
    if (!INTEL_KINDS.includes(kind as IntelKind) || !source || positionals.length !== 2)
      throw new Error('give kev or epss and one PATH or https URL\n' + USAGE);
    const { importIntel, IntelImportRefused } = await import('../intel/import');
    return withStore(async (store) => {
      try {
        const r = await importIntel(store, kind as IntelKind, source, {
          scoreDate: values['score-date'],
          onProgress: (m) => json || console.error(m),
        });
        print(json, r, intelLine(r));
        return 0;
      } catch (err) {
        if (!(err instanceof IntelImportRefused)) throw err;
        if (json) print(true, { kind, source, status: 'failed', reason: err.reason, attempts: err.attempts }, '');
        console.error(`${err.message}; the current generation stays`);
        return 1;
      }
    });
  }
  if (command === 'sync') {
    const { configuredIntelSources, syncIntel } = await import('../intel/sync');
    const sources = configuredIntelSources();
    if (Object.keys(sources).length === 0)
      throw new Error('no feeds: set INTEL_KEV_SOURCE and/or INTEL_EPSS_SOURCE (docs/intelligence.md)\n' + USAGE);
    return withStore(async (store) => {
      const r = await syncIntel(store, sources, { onProgress: (m) => json || console.error(m) });
      print(json, r, r.feeds.map(intelLine).join('\n'));
      const failed = r.feeds.filter((f) => f.status === 'failed').length;
      if (failed) console.error(`intel sync: ${failed} feed(s) failed; their current generations stay`);
      return failed ? 1 : 0;
    });
  }
  if (command === 'schedule') {
    const config = loadConfig();
    const { Client, Connection } = await import('@temporalio/client');
    const { ensureIntelRefreshSchedule, INTEL_REFRESH_SCHEDULE } = await import('../temporal/schedules');
    const connection = await Connection.connect({ address: requireTemporalAddress(config) });
    try {
      const how = await ensureIntelRefreshSchedule(
        new Client({ connection, namespace: config.temporalNamespace }),
        config.taskQueue,
        values.every ?? process.env.INTEL_REFRESH_INTERVAL ?? '24h',
      );
      console.log(`schedule ${INTEL_REFRESH_SCHEDULE} ${how}`);
    } finally {
      await connection.close();
    }
    return 0;
  }
  if (command === 'status') {
    const { intelStatus } = await import('../storage/intel');
    return withStore(async (store) => {
      const s = await intelStatus(store);
      const line = (kind: IntelKind) => {
        const f = s[kind];
        if (!f) return `${kind}: never imported`;
        const what =
          kind === 'kev'
            ? `catalogVersion ${s.kev!.catalogVersion}, released ${s.kev!.dateReleased}, ${f.count} entries`
            : `model ${s.epss!.modelVersion ?? '(none)'}, score date ${s.epss!.scoreDate}, ${f.count} scores`;
        return `${kind}: generation ${f.generation}, ${what}; imported ${f.importedAt}${f.checkedAt ? `, last found unchanged ${f.checkedAt}` : ''} from ${f.source}`;
      };
      print(json, s, INTEL_KINDS.map(line).join('\n'));
      return 0;
    });
  }
  return null;
}

export async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'admin' && command === 'session' && rest.some((a) => a.startsWith('--revoke=')))
    throw new Error(REVOKE_HINT);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      json: { type: 'boolean' },
      revoke: { type: 'boolean' },
      every: { type: 'string' },
      'score-date': { type: 'string' },
    },
  });
  const json = values.json ?? false;

  if (group === 'admin' && command === 'bootstrap') {
    if (!values.org || !values.email) throw new Error('--org and --email are required\n' + USAGE);
    return withStore(async (store) => {
      const { org, user, member } = await createOrgWithOwner(store, values.org!, values.email!);
      const { token, session } = await createSession(store, user._id);
      print(
        json,
        {
          sessionToken: token,
          sessionExpiresAt: session.expiresAt.toISOString(),
          org: { id: org._id, name: org.name },
          user: { id: user._id, email: user.email },
          member: { id: member._id, role: member.role, joinedAt: member.joinedAt.toISOString() },
        },
        `organization ${org._id} (${org.name}), owner ${user.email} (${member._id})\nsession token (shown once): ${token}`,
      );
      return 0;
    });
  }
  if (group === 'admin' && command === 'users') {
    return withStore(async (store) => {
      const now = new Date();
      const [users, members, orgs, sessions] = await Promise.all([
        store.c.users.find({}).toArray(),
        store.c.members.find({}).toArray(),
        store.c.orgs.find({}).toArray(),
        store.c.sessions.find({ revokedAt: null }).toArray(),
      ]);
      const rows = users
        .sort((a, b) => (a.email < b.email ? -1 : 1))
        .map((u) => {
          const m = members.find((x) => x.userId === u._id);
          const org = m ? orgs.find((o) => o._id === m.orgId) : undefined;
          const active = sessions.filter((s) => s.userId === u._id && s.expiresAt > now);
          return {
            id: u._id,
            email: u.email,
            org: org ? { id: org._id, name: org.name } : null,
            member: m ? { id: m._id, role: m.role } : null,
            activeSessions: active.length,
            lastSessionAt: active.length
              ? new Date(Math.max(...active.map((s) => s.createdAt.getTime()))).toISOString()
              : null,
          };
        });
      const text = rows
        .map(
          (r) =>
            `${r.email.padEnd(36)} ${(r.org ? `${r.org.name} (${r.member!.role})` : '(no organization)').padEnd(32)} ${r.activeSessions} active session(s)`,
        )
        .join('\n');
      print(json, { users: rows }, text || '(no users)');
      return 0;
    });
  }
  if (group === 'admin' && command === 'session') {
    if (values.revoke) {
      if (positionals.some((a) => a !== '-')) throw new Error(REVOKE_HINT); // `--revoke TOKEN`; `--revoke -` is stdin
      const token = await tokenFromStdin();
      return withStore(async (store) => {
        const ok = await revokeSession(store, token);
        print(json, { revoked: ok }, ok ? 'session revoked' : 'no active session with that token');
        return ok ? 0 : 1;
      });
    }
    if (!values.email) throw new Error('--email is required\n' + USAGE);
    return withStore(async (store) => {
      const user = await findOrCreateUser(store, values.email!);
      const { token, session } = await createSession(store, user._id);
      print(
        json,
        {
          sessionToken: token,
          sessionExpiresAt: session.expiresAt.toISOString(),
          user: { id: user._id, email: user.email },
        },
        `session token for ${user.email} (shown once): ${token}`,
      );
      return 0;
    });
  }
  if (group === 'advisories' && command === 'import') {
    if (positionals.length === 0) throw new Error('give at least one PATH\n' + USAGE);
    return withStore(async (store) => {
      const r = await importAdvisories(store, positionals);
      const lines = [
        `generation ${r.generation}${r.generation === r.previous ? ' (unchanged)' : ''}`,
        `new ${r.new}, updated ${r.updated}, unchanged ${r.unchanged}, withdrawn ${r.withdrawn}, skipped (other ecosystems) ${r.skipped}, rejected ${r.rejected.length}, failed files ${r.failedFiles.length}, failed sources ${r.failedSources.length}; ${r.total} advisories in the generation`,
        ...problemLines(r),
      ];
      print(json, r, lines.join('\n'));
      await rematchAlerts(r.generation, r.previous, json);
      failureSummary('import', r.failedSources.length, r.failedFiles.length);
      return importFailed(r) ? 1 : 0;
    });
  }
  if (group === 'advisories' && command === 'sync') {
    const sources = positionals.length ? positionals : configuredSources();
    if (sources.length === 0) throw new Error('no sources: give SOURCE arguments or set ADVISORY_SOURCES\n' + USAGE);
    return withStore(async (store) => {
      const r = await syncAdvisories(store, sources, { onProgress: (m) => json || console.error(m) });
      const lines = [
        ...r.sources.map(
          (s) =>
            `${s.status === 'applied' ? 'applied' : 'FAILED '} ${s.source}${s.reason ? `: ${s.reason}` : ''} (${s.attempts} attempt${s.attempts === 1 ? '' : 's'})`,
        ),
        `generation ${r.generation}${r.generation === r.previous ? ' (unchanged)' : ''}: new ${r.new}, updated ${r.updated}, unchanged ${r.unchanged}, withdrawn ${r.withdrawn}, skipped ${r.skipped}, rejected ${r.rejected.length}, failed files ${r.failedFiles.length}`,
        ...problemLines({ ...r, failedSources: [] }), // failed sources are on their own lines above
      ];
      print(json, r, lines.join('\n'));
      await rematchAlerts(r.generation, r.previous, json);
      const failedSources = r.sources.filter((s) => s.status === 'failed').length;
      failureSummary('sync', failedSources, r.failedFiles.length);
      return failedSources + r.failedFiles.length > 0 ? 1 : 0;
    });
  }
  if (group === 'advisories' && command === 'schedule') {
    const config = loadConfig();
    const { Client, Connection } = await import('@temporalio/client');
    const { ensureAdvisoryRefreshSchedule } = await import('../temporal/schedules');
    const connection = await Connection.connect({ address: requireTemporalAddress(config) });
    try {
      const how = await ensureAdvisoryRefreshSchedule(
        new Client({ connection, namespace: config.temporalNamespace }),
        config.taskQueue,
        values.every ?? process.env.ADVISORY_REFRESH_INTERVAL ?? '6h',
      );
      console.log(`schedule advisory-refresh ${how}`);
    } finally {
      await connection.close();
    }
    return 0;
  }
  if (group === 'intel') {
    const r = await intelCommand(command, positionals, values, json);
    if (r !== null) return r;
  }
  if (group === 'db' && command === 'show') {
    const [what, id] = positionals;
    if ((what !== 'scan' && what !== 'findings') || !id || positionals.length !== 2)
      throw new Error('give scan ID or findings ID\n' + USAGE);
    const { showFindings, showScan, NotStored } = await import('./db-show');
    return withStore(async (store) => {
      try {
        console.log(
          JSON.stringify(what === 'scan' ? await showScan(store, id) : await showFindings(store, id), null, 2),
        );
        return 0;
      } catch (err) {
        if (!(err instanceof NotStored)) throw err;
        console.error(err.message);
        return 1;
      }
    });
  }
  if (group === 'temporal' && command === 'setup') {
    const config = loadConfig();
    const { Connection } = await import('@temporalio/client');
    const { registerSearchAttributes } = await import('../temporal/search-attributes');
    const connection = await Connection.connect({ address: requireTemporalAddress(config) });
    try {
      await registerSearchAttributes(connection, config.temporalNamespace);
    } finally {
      await connection.close();
    }
    console.log(`search attributes registered in namespace ${config.temporalNamespace}`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}
