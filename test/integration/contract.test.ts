// Contract test: schemathesis (src/infra/schemathesis.ts, pinned) fuzzes every operation of GET /v1/openapi.json on a
// real API with valid credentials and checks each answer against the document: no 5xx, the body matches the declared
// schema, the status and the content type are declared. Bounded by examples per operation and a wall-clock limit.
// The seed is fixed so CI sees the same cases every run; CONTRACT_SEED=N explores others.
import type { Worker } from '@temporalio/worker';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureSchemathesis, type Schemathesis } from '../../src/infra/schemathesis';
import { projectRoot } from '../../src/infra/tools';
import { SCOPES } from '../../src/http/auth/principal';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { newOrg, requireEnv, testContext, type TestContext } from '../helpers/context';

const CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'status_code_conformance',
  'content_type_conformance',
];
// Operations that can revoke the credential running them: in a run of their own with credentials nothing else uses.
const REVOKING = ['revokeApiKey', 'removeMember'];
const SCAN_OPS = ['uploadDependencySnapshot', 'listScans', 'getScan', 'listFindings'];
// The sidecar's and the gateway's operations take their own credentials only (an owner session gets 403 there).
const HOST_OPS = ['attestHost', 'hostHeartbeat'];
const GATEWAY_OPS = ['enrollGateway', 'gatewayHeartbeat'];
// Generous: a loaded CI machine (the other suites run beside this one) has taken over 150 s for the owner run.
const RUN_LIMIT_MS = 240_000;
const SEED = process.env.CONTRACT_SEED ?? '1';

let t: TestContext;
let st: Schemathesis;
let dir: string;
let worker: Worker | undefined;
let running: Promise<void> | undefined;

beforeAll(async () => {
  st = await ensureSchemathesis(projectRoot(), console);
  t = await testContext();
  // Uploaded scans complete, so GET /v1/scans/{id}?wait=N answers at once instead of holding the request N seconds.
  installRuntime('error');
  worker = (
    await createScanWorker({
      store: t.store,
      logger: createLogger('worker', 'silent'),
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
    })
  ).worker;
  running = worker.run();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'));
}, 600_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Failure {
  testcase: string;
  message: string;
}

/** Failures and errors of a JUnit report: every <testcase> with a <failure> or <error> child. */
function junitFailures(xml: string): { cases: string[]; failures: Failure[] } {
  const failures: Failure[] = [];
  const cases = xml.match(/<testcase\b[\s\S]*?(?:\/>|<\/testcase>)/g) ?? [];
  const names: string[] = [];
  for (const c of cases) {
    const name = /name="([^"]*)"/.exec(c)?.[1] ?? '?';
    names.push(name);
    for (const m of c.matchAll(/<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g)) {
      failures.push({
        testcase: name,
        message: `${m[1]}: ${/message="([^"]*)"/.exec(m[2])?.[1] ?? ''}\n${m[3] ?? ''}`.slice(0, 4000),
      });
    }
  }
  return { cases: names, failures };
}

/** One schemathesis run over the operations `ops` with `token`; async so this process keeps serving the API. */
async function run(
  name: string,
  token: string,
  ops: string[],
  maxExamples: number,
): Promise<{ cases: string[]; failures: Failure[]; output: string }> {
  const { port } = t.server.address() as { port: number };
  const report = path.join(dir, `${name}.xml`);
  const args = [
    ...st.args,
    'run',
    `http://127.0.0.1:${port}/v1/openapi.json`,
    '--url',
    `http://127.0.0.1:${port}`,
    '-H',
    `Authorization: Bearer ${token}`,
    '--checks',
    CHECKS.join(','),
    ...ops.flatMap((op) => ['--include-operation-id', op]),
    // One worker: with two, hypothesis's AST cache raised "recursion depth mismatch" errors on Python 3.11. The
    // request timeout is above the longest documented hold (?wait=60): a timeout means the server hung.
    '--max-examples',
    String(maxExamples),
    '--workers',
    '1',
    '--request-timeout',
    '65',
    '--seed',
    SEED,
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--suppress-health-check',
    'all',
    '--report',
    'junit',
    '--report-junit-path',
    report,
    '--output-truncate',
    'false',
    '--no-color',
  ];
  const output = await new Promise<string>((resolve) => {
    // Exit status 1 means failures found: the report says which, so any exit is read the same way. cwd: dir keeps
    // schemathesis's .schemathesis/ cache out of the project.
    execFile(
      st.python,
      args,
      { cwd: dir, env: st.env, timeout: RUN_LIMIT_MS, maxBuffer: 64 << 20, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        resolve(
          `${stdout}\n${stderr}${err && (err as { killed?: boolean }).killed ? `\nkilled after ${RUN_LIMIT_MS} ms` : ''}`,
        );
      },
    );
  });
  if (!fs.existsSync(report)) throw new Error(`schemathesis wrote no report:\n${output.slice(-8000)}`);
  return { ...junitFailures(fs.readFileSync(report, 'utf8')), output };
}

/** operationId → the JUnit test case name schemathesis gives it ("GET /v1/scans/{scanId}"). */
const OPERATIONS = new Map(
  Object.entries(openApiDocument().paths).flatMap(([p, methods]) =>
    Object.entries(methods as Record<string, { operationId: string }>).map(
      ([m, o]) => [o.operationId, `${m.toUpperCase()} ${p}`] as const,
    ),
  ),
);
const allOps = () => [...OPERATIONS.keys()];

function expectNoFailures(r: { cases: string[]; failures: Failure[]; output: string }, ops: string[]) {
  if (r.failures.length)
    console.log(`seed ${SEED}\n\n` + r.failures.map((f) => `${f.testcase}\n${f.message}`).join('\n\n---\n\n'));
  const expected = ops.map((op) => OPERATIONS.get(op)).sort();
  const tested = r.cases.filter((c) => /^[A-Z]+ \//.test(c)).sort();
  if (tested.join() !== expected.join()) console.log(r.output.slice(-8000));
  expect(r.failures.map((f) => f.testcase)).toEqual([]);
  // Every operation asked for was tested (a filter naming no operation would otherwise pass vacuously).
  // (stateful testing adds a case of its own, not an operation)
  expect(tested).toEqual(expected);
}

// The owner's operations in three runs, each within RUN_LIMIT_MS on a loaded CI machine: MCP auditing, and alerts
// with their triage, the comparison of scans and the reads across projects (trends, the portfolio, where used, an
// advisory's reach), apart from the rest.
const isMcp = (op: string) => / \/v1\/mcp\//.test(OPERATIONS.get(op) ?? '');
const isAlerts = (op: string) =>
  / \/v1\/(alerts|metrics\/|advisories\/|dependencies\/usages)|\/compare$/.test(OPERATIONS.get(op) ?? '');
const ownerOps = () =>
  allOps().filter((op) => !REVOKING.includes(op) && !HOST_OPS.includes(op) && !GATEWAY_OPS.includes(op));

test(
  "every operation but the revoking ones, MCP's and the alerts', with an owner session: answers conform to the document",
  async () => {
    const org = await newOrg(t.store);
    const ops = ownerOps().filter((op) => !isMcp(op) && !isAlerts(op));
    expectNoFailures(await run('owner', org.ownerToken, ops, 25), ops);
  },
  RUN_LIMIT_MS + 30_000,
);

test(
  'the alert, triage, comparison and cross-project operations with an owner session',
  async () => {
    const org = await newOrg(t.store);
    const ops = ownerOps().filter(isAlerts);
    expect(ops.length).toBeGreaterThanOrEqual(7);
    expectNoFailures(await run('owner-alerts', org.ownerToken, ops, 25), ops);
  },
  RUN_LIMIT_MS + 30_000,
);

test(
  'the MCP operations with an owner session',
  async () => {
    const org = await newOrg(t.store);
    const ops = ownerOps().filter(isMcp);
    expect(ops.length).toBeGreaterThanOrEqual(11);
    expectNoFailures(await run('owner-mcp', org.ownerToken, ops, 25), ops);
  },
  RUN_LIMIT_MS + 30_000,
);

test(
  'scan operations with an API key holding every scope',
  async () => {
    const org = await newOrg(t.store);
    const key = await org.key([...SCOPES]);
    expectNoFailures(await run('key', key, SCAN_OPS, 15), SCAN_OPS);
  },
  RUN_LIMIT_MS + 30_000,
);

test(
  "the sidecar's operations with a registration token, the gateway's with an enrollment token",
  async () => {
    const org = await newOrg(t.store);
    const post = async (path: string, body: object) =>
      (await t.api.post(path).set('Authorization', `Bearer ${org.ownerToken}`).send(body)).body;
    const registration = await post('/v1/hosts/registration-tokens', { name: 'contract', uses: 10000 });
    expectNoFailures(await run('sidecar', registration.token, HOST_OPS, 25), HOST_OPS);
    const enrollment = await post('/v1/gateways/enrollment-tokens', { name: 'contract' });
    expectNoFailures(await run('gateway', enrollment.token, GATEWAY_OPS, 25), GATEWAY_OPS);
  },
  2 * RUN_LIMIT_MS + 30_000,
);

test(
  'revoking operations, with a fresh owner session of their own',
  async () => {
    const org = await newOrg(t.store);
    await org.key(['scans:read']);
    expectNoFailures(await run('revoking', org.ownerToken, REVOKING, 25), REVOKING);
  },
  RUN_LIMIT_MS + 30_000,
);
