// `scanner mcp hook` (issue 19) against a local stand-in for POST /v1/mcp/usage-events: every decision
// (allow, warn, block) as each agent's answer (Claude Code PreToolUse, Cursor beforeMCPExecution); exactly one `pre`
// event per call, its server found in the agent's configuration for the input's directory (Claude Code: local, then
// project, then user), never the tool's arguments; the service unreachable (or no credential) under --fail open and
// --fail closed; tools that are not MCP tools pass through without a request; and the built file run as the agents run
// it, the hook input on stdin.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mcpCommand } from '../../../src/client/commands/mcp';
import type { Io } from '../../../src/client/io';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildClient } = require('../../../tools/build-client.js');

const TOKEN = 'svc_key_hookTESTtoken0001';
const ARG_SECRET = 'ghp_Zx9Cv8Bn7Mm6Lk5Jh4Gf3Ds2Aa1Qw0Er9Ty8';
const ENV_SECRET = 'ghp_Pp1Oo2Ii3Uu4Yy5Tt6Rr7Ee8Ww9Qq0Aa1Ss2';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}
let service: http.Server;
let url: string;
let seen: Seen[];
let decision: { decision: string; reason: string };
let tmp: string;
let home: string;
let cwd: string;

beforeAll(async () => {
  service = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ url: req.url ?? '', headers: req.headers, raw, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          accepted: 1,
          duplicates: 0,
          decisions: body.events.map((e: any) => ({ eventId: e.eventId, ...decision })),
        }),
      );
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => service.close(() => r())));

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

beforeEach(() => {
  seen = [];
  decision = { decision: 'allow', reason: 'observe' };
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-hook-'));
  home = path.join(tmp, 'home');
  cwd = path.join(tmp, 'work', 'app');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(home);
  // Claude Code: the user's github (another command), the project's .mcp.json github (wins over the user's), and a
  // local-scope server in ~/.claude.json for this project whose name Claude Code rewrites in tool names.
  write(path.join(home, '.claude.json'), {
    mcpServers: { github: { command: 'user-github-server' } },
    projects: {
      [cwd]: { mcpServers: { 'db.tools': { command: 'uvx', args: ['mcp-db==1.2.0'] } } },
      '/elsewhere': { mcpServers: { other: { command: 'x' } } },
    },
  });
  write(path.join(cwd, '.mcp.json'), {
    mcpServers: {
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github@1.0.0'],
        env: { GITHUB_TOKEN: ENV_SECRET },
      },
    },
  });
  // Cursor: the project's servers, one by command and one by URL.
  write(path.join(cwd, '.cursor', 'mcp.json'), {
    mcpServers: {
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github@1.0.0'],
        env: { GITHUB_TOKEN: ENV_SECRET },
      },
      docs: { url: 'https://docs.example.com/mcp?key=AbC123xyz-query-secret-789' },
    },
  });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const claudeInput = (tool: string, dir = cwd) =>
  JSON.stringify({
    session_id: 's1',
    transcript_path: '/tmp/t.jsonl',
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: { title: 'x', token: ARG_SECRET },
  });
const cursorInput = (
  extra: Record<string, unknown> = { command: 'npx -y @modelcontextprotocol/server-github@1.0.0' },
) =>
  JSON.stringify({
    hook_event_name: 'beforeMCPExecution',
    conversation_id: 'c',
    generation_id: 'g',
    workspace_roots: [cwd],
    tool_name: 'create_issue',
    tool_input: JSON.stringify({ token: ARG_SECRET }),
    ...extra,
  });

async function hook(args: string[], stdin: string, env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: { HOME: home, SCANNER_URL: url, SCANNER_TOKEN: TOKEN, ...env },
    cwd: tmp,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const code = await mcpCommand(['hook', ...args], io, {
    readStdin: () => stdin,
    discoveryEnv: { platform: 'linux', systemRoot: path.join(tmp, 'root') },
    hostname: () => 'dev-laptop.example',
    sleep: async () => undefined,
  }).catch((e: Error & { exitCode?: number }) => {
    err += `scanner: ${e.message}\n`;
    return e.exitCode ?? 99;
  });
  return { code, out, err, answer: out ? JSON.parse(out) : undefined };
}

const claudeAnswers: Record<string, unknown> = {
  allow: {},
  warn: {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: 'scanner: warning by MCP policy: the reason',
    },
    systemMessage: 'scanner: warning by MCP policy: the reason',
  },
  block: {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'scanner: blocked by MCP policy: the reason',
    },
  },
};
const cursorAnswers: Record<string, unknown> = {
  allow: { permission: 'allow' },
  warn: {
    permission: 'ask',
    user_message: 'scanner: warning by MCP policy: the reason',
    agent_message: 'scanner: warning by MCP policy: the reason',
  },
  block: {
    permission: 'deny',
    user_message: 'scanner: blocked by MCP policy: the reason',
    agent_message: 'scanner: blocked by MCP policy: the reason',
  },
};

describe.each(['allow', 'warn', 'block'])('decision %s', (d) => {
  test('Claude Code: the answer, one pre event for the project server, never the arguments', async () => {
    decision = { decision: d, reason: 'the reason' };
    const r = await hook(['--client', 'claude-code'], claudeInput('mcp__github__create_issue'));
    expect(r.code).toBe(0);
    expect(r.answer).toEqual(claudeAnswers[d]);
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe('/v1/mcp/usage-events');
    expect(seen[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0].body.events).toHaveLength(1);
    const [e] = seen[0].body.events;
    expect(e).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      occurredAt: expect.any(String),
      host: { hostname: 'dev-laptop.example' },
      client: 'claude-code',
      server: {
        name: 'github',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github@1.0.0'],
      },
      tool: 'create_issue',
      phase: 'pre',
    });
    expect(seen[0].raw).not.toContain(ARG_SECRET);
    expect(seen[0].raw).not.toContain(ENV_SECRET);
    expect(r.out + r.err).not.toContain(ARG_SECRET);
  });

  test('Cursor: the answer, the server found by its command line', async () => {
    decision = { decision: d, reason: 'the reason' };
    const r = await hook(['--client', 'cursor'], cursorInput());
    expect(r.code).toBe(0);
    expect(r.answer).toEqual(cursorAnswers[d]);
    expect(seen).toHaveLength(1);
    expect(seen[0].body.events[0]).toMatchObject({
      client: 'cursor',
      server: { name: 'github', transport: 'stdio', command: 'npx' },
      tool: 'create_issue',
      phase: 'pre',
    });
    expect(seen[0].raw).not.toContain(ARG_SECRET);
  });
});

test('each call is its own event: a new eventId every time', async () => {
  await hook(['--client', 'claude-code'], claudeInput('mcp__github__create_issue'));
  await hook(['--client', 'claude-code'], claudeInput('mcp__github__create_issue'));
  const ids = seen.map((s) => s.body.events[0].eventId);
  expect(ids).toHaveLength(2);
  expect(ids[0]).not.toBe(ids[1]);
});

test('Claude Code: the local scope server (name rewritten in the tool name) and an unknown server (named as written)', async () => {
  await hook(['--client', 'claude-code'], claudeInput('mcp__db_tools__run_query'));
  expect(seen[0].body.events[0]).toMatchObject({
    server: { name: 'db.tools', transport: 'stdio', command: 'uvx', args: ['mcp-db==1.2.0'] },
    tool: 'run_query',
  });
  await hook(['--client', 'claude-code'], claudeInput('mcp__plugin_stuff__do__it'));
  expect(seen[1].body.events[0]).toMatchObject({ server: { name: 'plugin_stuff' }, tool: 'do__it' });
  // Another directory: the user's github (the project's is not there).
  const other = path.join(tmp, 'other');
  fs.mkdirSync(other);
  await hook(['--client', 'claude-code'], claudeInput('mcp__github__create_issue', other));
  expect(seen[2].body.events[0].server).toEqual({ name: 'github', transport: 'stdio', command: 'user-github-server' });
});

test('Cursor: a server found by its URL is sent redacted; an unknown command is named by its program', async () => {
  await hook(
    ['--client', 'cursor'],
    cursorInput({ url: 'https://docs.example.com/mcp?key=AbC123xyz-query-secret-789' }),
  );
  expect(seen[0].body.events[0].server).toEqual({
    name: 'docs',
    transport: 'http',
    url: 'https://docs.example.com/mcp?key=[REDACTED]',
  });
  await hook(
    ['--client', 'cursor'],
    cursorInput({ command: '/opt/bin/mystery-server --api-key sk-abcdefghijklmnopqrstuvwxyz123456' }),
  );
  expect(seen[1].body.events[0].server).toEqual({
    name: 'mystery-server',
    transport: 'stdio',
    command: '/opt/bin/mystery-server',
    args: ['--api-key', '[REDACTED]'],
  });
  expect(seen.map((s) => s.raw).join('')).not.toMatch(/AbC123xyz|sk-abcdefghij/);
});

test('tools that are not MCP tools pass through at once, with no request', async () => {
  const r = await hook(['--client', 'claude-code'], claudeInput('Bash'));
  expect([r.code, r.answer]).toEqual([0, {}]);
  const c = await hook(
    ['--client', 'cursor'],
    JSON.stringify({ hook_event_name: 'beforeShellExecution', command: 'ls' }),
  );
  expect([c.code, c.answer]).toEqual([0, { permission: 'allow' }]);
  expect(seen).toEqual([]);
});

describe('no decision: --fail open (default) allows with a message, --fail closed denies', () => {
  let closedUrl: string;
  beforeAll(async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    closedUrl = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise<void>((r) => s.close(() => r()));
  });
  const cases: Array<[string, string[], 'claude-code' | 'cursor', unknown]> = [
    [
      'open (default)',
      [],
      'claude-code',
      { systemMessage: expect.stringMatching(/^scanner: no MCP audit decision \(.+\): allowed \(--fail open\)$/) },
    ],
    [
      'open',
      ['--fail', 'open'],
      'cursor',
      { permission: 'allow', user_message: expect.stringMatching(/allowed \(--fail open\)$/) },
    ],
    [
      'closed',
      ['--fail', 'closed'],
      'claude-code',
      {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringMatching(/denied \(--fail closed\)$/),
        },
      },
    ],
    [
      'closed',
      ['--fail', 'closed'],
      'cursor',
      {
        permission: 'deny',
        user_message: expect.stringMatching(/denied \(--fail closed\)$/),
        agent_message: expect.any(String),
      },
    ],
  ];
  test.each(cases)('unreachable service, %s, %s', async (_, flags, client, expected) => {
    const input = client === 'cursor' ? cursorInput() : claudeInput('mcp__github__create_issue');
    const r = await hook(['--client', client, '--timeout', '2', ...flags], input, { SCANNER_URL: closedUrl });
    expect(r.code).toBe(0);
    expect(r.answer).toEqual(expected);
    expect(r.err).toMatch(/scanner: mcp hook: /);
  });
  test.each([
    ['no SCANNER_TOKEN', { SCANNER_TOKEN: undefined }, claudeInput('mcp__github__create_issue')],
    ['input that is not JSON', {}, '{not json'],
  ])('%s is a failure too', async (_, env, stdin) => {
    const open = await hook(['--client', 'claude-code'], stdin, env);
    expect(open.answer).toEqual({ systemMessage: expect.stringMatching(/allowed \(--fail open\)$/) });
    const closed = await hook(['--client', 'claude-code', '--fail', 'closed'], stdin, env);
    expect(closed.answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(seen).toEqual([]);
  });
  test('401 from the service follows the fail mode', async () => {
    const s = http.createServer((_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":{"code":"invalid_token","message":"no","requestId":"r"}}'),
    );
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      const r = await hook(['--client', 'cursor', '--fail', 'closed'], cursorInput(), {
        SCANNER_URL: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
      });
      expect(r.answer).toMatchObject({ permission: 'deny', user_message: expect.stringMatching(/401 invalid_token/) });
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
});

test('usage errors: exit 2', async () => {
  for (const args of [
    [],
    ['--client', 'vscode'],
    ['--client', 'cursor', '--fail', 'maybe'],
    ['--client', 'cursor', '--timeout', '-1'],
    ['--client', 'cursor', 'extra'],
  ]) {
    expect([args, (await hook(args, cursorInput())).code]).toEqual([args, 2]);
  }
  expect(seen).toEqual([]);
});

test('the built file, run as Claude Code runs the hook: stdin JSON in, the answer on stdout, exit 0', async () => {
  const built = await buildClient({ write: false });
  const bundle = path.join(tmp, 'scanner.mjs');
  fs.writeFileSync(bundle, built.outputFiles[0].text);
  decision = { decision: 'block', reason: 'denied by the registry' };
  const runBuilt = (args: string[], stdin: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [bundle, 'mcp', 'hook', ...args], {
        env: { PATH: process.env.PATH, HOME: home, SCANNER_URL: url, SCANNER_TOKEN: TOKEN },
        cwd: tmp,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });
  const r = await runBuilt(['--client', 'claude-code'], claudeInput('mcp__github__create_issue'));
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'scanner: blocked by MCP policy: denied by the registry',
    },
  });
  expect(seen).toHaveLength(1);
  expect(seen[0].body.events[0]).toMatchObject({
    client: 'claude-code',
    server: { name: 'github' },
    tool: 'create_issue',
    phase: 'pre',
    host: { hostname: os.hostname() },
  });
  const c = await runBuilt(['--client', 'cursor'], cursorInput());
  expect([c.code, JSON.parse(c.stdout).permission]).toEqual([0, 'deny']);
}, 60_000);
