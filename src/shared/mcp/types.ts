// The shapes of MCP auditing shared by the CI client (which reads agent configurations and uploads them) and the
// service (which stores and evaluates them), as docs/mcp.md describes them. Dependency-free: the client bundle
// imports this file.

export type McpTransport = 'stdio' | 'http' | 'sse';

/** The agents whose configuration files the client reads (the `client` of POST /v1/mcp/scans). */
export const MCP_CLIENTS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'gemini-cli',
  'codex',
  'other',
] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export type McpConfigScope = 'user' | 'project' | 'managed';

/**
 * One configured server as uploaded (`clients[].servers[]` of POST /v1/mcp/scans), after the client's redaction:
 * `args`, `url` and `command` passed through {@link redactServer} (src/shared/mcp/redact.ts), and of `env` and
 * `headers` only the names, each with a `${...}` reference as written or `[REDACTED]` in place of a literal value.
 */
export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  command?: string;
  args?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

/** One configuration file (or one section of one: the per-project entries of Claude Code's `~/.claude.json`). */
export interface McpClientConfig {
  client: McpClient;
  /** Where the file is, its leading home directory written `~`; a section of a file as `file#section`. */
  configPath: string;
  scope: McpConfigScope;
  servers: McpServerConfig[];
}
