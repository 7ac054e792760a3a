// `scanner mcp hook` (issue 19), the part without I/O: reading an agent's pre-tool hook input, finding
// the configured server a call goes to, and writing the service's decision as the agent's answer.
//
// - Claude Code, PreToolUse (https://code.claude.com/docs/en/hooks): stdin `{hook_event_name, tool_name, tool_input,
//   cwd, session_id, ...}`; MCP tools are named `mcp__<server>__<tool>`. The answer on stdout, exit 0:
//   block → `hookSpecificOutput.permissionDecision: "deny"` with the reason (shown to Claude);
//   warn → `"ask"` with the reason (the user sees it in the permission prompt and decides);
//   allow → no decision at all (`{}`): Claude Code's own permission rules and prompts apply as if there were no hook.
//   An `"allow"` decision would skip the user's permission prompt, which an auditing hook has no business doing.
// - Cursor, beforeMCPExecution (https://cursor.com/docs/agent/hooks): stdin `{hook_event_name, tool_name, tool_input,
//   url | command, workspace_roots, ...}` (the tool's own name; the server named by its URL or command line). The
//   answer `{permission: allow|ask|deny, user_message?, agent_message?}`: allow → allow, warn → ask, block → deny.
// - Unreachable service (or any failure to get a decision): --fail open → allowed as above with a message saying
//   why; --fail closed → deny.
// Never sent: tool_input (the call's arguments).
import path from 'node:path';
import { homeToTilde, redactText } from '../../shared/mcp/redact';
import type { McpClientConfig, McpServerConfig } from '../../shared/mcp/types';
import type { McpLaunch } from './servers';

export type HookClient = 'claude-code' | 'cursor';
export type Decision = 'allow' | 'warn' | 'block';
export type FailMode = 'open' | 'closed';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** What the hook read: an MCP call (to look up), or something else to let through without asking anyone. */
export type HookCall =
  | { kind: 'passthrough'; why: string }
  | {
      kind: 'mcp';
      /** Claude Code: the server part of `mcp__<server>__<tool>` (as Claude Code wrote it); Cursor: none. */
      qualified?: string;
      tool?: string;
      /** Cursor: how the server is reached. */
      url?: string;
      command?: string;
      serverName?: string;
      dir: string;
    };

/** Parses the hook's stdin; throws (a message without any value of the input) when it is not a hook input. */
export function readHookInput(client: HookClient, text: string, fallbackDir: string): HookCall {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new Error('the hook input on stdin is not JSON');
  }
  if (!isObject(input)) throw new Error('the hook input on stdin is not a JSON object');
  const event = str(input.hook_event_name);
  const toolName = str(input.tool_name);
  if (client === 'claude-code') {
    if (event && event !== 'PreToolUse') return { kind: 'passthrough', why: `not a PreToolUse event` };
    if (!toolName) throw new Error('the hook input has no tool_name');
    if (!toolName.startsWith('mcp__')) return { kind: 'passthrough', why: 'not an MCP tool' };
    return { kind: 'mcp', qualified: toolName.slice(5), dir: str(input.cwd) ?? fallbackDir };
  }
  if (event && event !== 'beforeMCPExecution') return { kind: 'passthrough', why: 'not a beforeMCPExecution event' };
  if (!toolName) throw new Error('the hook input has no tool_name');
  const roots = Array.isArray(input.workspace_roots)
    ? input.workspace_roots.filter((r): r is string => typeof r === 'string' && r !== '')
    : [];
  return {
    kind: 'mcp',
    tool: toolName,
    url: str(input.url),
    command: str(input.command),
    serverName: str(input.server_name) ?? str(input.server),
    dir: roots[0] ?? str(input.cwd) ?? fallbackDir,
  };
}

/** How Claude Code writes a server's name in tool names: characters other than letters, digits, _ and - become _. */
export const claudeToolPrefix = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');

export interface Candidate {
  config: McpClientConfig;
  server: McpServerConfig;
  launch?: McpLaunch;
}

/**
 * The configured servers of CLIENT that apply in DIR, in the order the agent prefers them: Claude Code's local scope
 * (the project's entry in ~/.claude.json), then the project's file, then the user's, then managed ones; Cursor's
 * project file, then the user's.
 */
export function candidates(
  client: HookClient,
  configs: McpClientConfig[],
  launches: Map<McpServerConfig, McpLaunch>,
  dir: string,
  home: string,
): Candidate[] {
  const mine = configs.filter((c) => c.client === client);
  const local = `#projects[${homeToTilde(path.resolve(dir), home)}]`;
  const inDir = (c: McpClientConfig) => {
    const file = c.configPath.replace(/^~(?=[\\/])/, home);
    return (
      c.scope === 'project' &&
      !c.configPath.includes('#') &&
      path.resolve(dir) === path.resolve(path.dirname(file), client === 'cursor' ? '..' : '.')
    );
  };
  const rank = (c: McpClientConfig): number => {
    if (c.configPath.endsWith(local)) return 0;
    if (inDir(c)) return 1;
    if (c.scope === 'user') return 2;
    if (c.scope === 'managed') return 3;
    return 9; // another project's
  };
  return mine
    .filter((c) => rank(c) < 9)
    .sort((a, b) => rank(a) - rank(b))
    .flatMap((config) => config.servers.map((server) => ({ config, server, launch: launches.get(server) })));
}

export interface Resolved {
  /** The usage event's `server` (redacted, as uploaded). */
  server: { name: string; transport?: string; command?: string; args?: string[]; url?: string };
  tool: string;
  /** Where the server's configuration was found, when it was. */
  configPath?: string;
}

const commandLine = (l: McpLaunch | undefined) => (l?.command ? [l.command, ...(l.args ?? [])].join(' ') : undefined);
const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The server (and tool) an MCP call goes to: its configuration when found, else what the input says of it. */
export function resolveCall(call: Extract<HookCall, { kind: 'mcp' }>, found: Candidate[]): Resolved {
  const asUploaded = (c: Candidate, tool: string): Resolved => {
    const s = c.server;
    return {
      server: {
        name: s.name,
        transport: s.transport,
        ...(s.command ? { command: s.command } : {}),
        ...(s.args ? { args: s.args } : {}),
        ...(s.url ? { url: s.url } : {}),
      },
      tool,
      configPath: c.config.configPath,
    };
  };
  if (call.qualified !== undefined) {
    // mcp__<server>__<tool>: the longest configured server whose prefix matches (names may hold `__` themselves).
    let best: Candidate | undefined;
    for (const c of found) {
      const prefix = `${claudeToolPrefix(c.server.name)}__`;
      if (
        call.qualified.startsWith(prefix) &&
        (!best || claudeToolPrefix(c.server.name).length > claudeToolPrefix(best.server.name).length)
      )
        best = c;
    }
    if (best) return asUploaded(best, call.qualified.slice(claudeToolPrefix(best.server.name).length + 2));
    const i = call.qualified.indexOf('__');
    const name = i < 0 ? call.qualified : call.qualified.slice(0, i);
    return {
      server: { name: redactText(name) },
      tool: redactText(i < 0 ? '' : call.qualified.slice(i + 2)) || redactText(call.qualified),
    };
  }
  const tool = call.tool ?? '';
  const byName = call.serverName ? found.find((c) => c.server.name === call.serverName) : undefined;
  const byUrl = call.url ? found.find((c) => c.launch?.url && sameUrl(c.launch.url, call.url!)) : undefined;
  const byCommand = call.command
    ? (found.find((c) => commandLine(c.launch) === call.command) ??
      found.find((c) => c.launch?.command && call.command!.split(/\s+/)[0] === c.launch.command))
    : undefined;
  const hit = byName ?? byUrl ?? byCommand;
  if (hit) return asUploaded(hit, tool);
  // Not configured where we looked: named by its host, or its command's program, redacted.
  let name = call.serverName ?? 'unknown';
  const server: Resolved['server'] = { name };
  if (call.url) {
    try {
      name = call.serverName ?? new URL(call.url).hostname;
    } catch {
      /* not a URL */
    }
    Object.assign(server, { name: redactText(name), transport: 'http', url: redactText(call.url) });
  } else if (call.command) {
    const [program, ...args] = call.command.split(/\s+/);
    name = call.serverName ?? path.basename(program);
    Object.assign(server, {
      name: redactText(name),
      transport: 'stdio',
      command: redactText(program),
      ...(args.length ? { args: args.map(redactText) } : {}),
    });
  }
  return { server, tool };
}

export interface HookAnswer {
  /** The JSON written on stdout. */
  output: Record<string, unknown>;
}

/** The service's decision (or a failure to get one) as the agent's answer. */
export function answer(
  client: HookClient,
  outcome: { decision: Decision; reason: string } | { failed: string; mode: FailMode },
): Record<string, unknown> {
  if ('failed' in outcome) {
    const closed = outcome.mode === 'closed';
    const msg = `scanner: no MCP audit decision (${outcome.failed}): ${closed ? 'denied (--fail closed)' : 'allowed (--fail open)'}`;
    if (client === 'cursor')
      return closed
        ? { permission: 'deny', user_message: msg, agent_message: msg }
        : { permission: 'allow', user_message: msg };
    return closed
      ? {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: msg,
          },
        }
      : { systemMessage: msg };
  }
  const { decision, reason } = outcome;
  const msg = `scanner: ${decision === 'block' ? 'blocked' : decision === 'warn' ? 'warning' : 'allowed'} by MCP policy${reason ? `: ${reason}` : ''}`;
  if (client === 'cursor') {
    if (decision === 'block') return { permission: 'deny', user_message: msg, agent_message: msg };
    if (decision === 'warn') return { permission: 'ask', user_message: msg, agent_message: msg };
    return { permission: 'allow' };
  }
  if (decision === 'block')
    return {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: msg },
    };
  if (decision === 'warn')
    return {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: msg },
      systemMessage: msg,
    };
  return {};
}

/** A call that is not an MCP tool call: let it through, nothing asked. */
export const passthrough = (client: HookClient): Record<string, unknown> =>
  client === 'cursor' ? { permission: 'allow' } : {};
