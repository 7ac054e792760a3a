// The shapes MCP auditing works on, kept as they are stored: a configured server as kept after redaction (its tools,
// env and header names only), and the issues the audit finds. The domain's rules (./issues.ts) produce and read them;
// storage keeps them in its documents (src/storage/documents/mcp.ts).

/**
 * The issue codes, in the order issues are listed in (the table of ./issues.ts, which re-exports this as ISSUE_ORDER):
 * the one list of them. The OpenAPI document's McpIssueCode schema is made from it, and the web app's types from the
 * document.
 */
export const MCP_ISSUE_CODES = [
  'vulnerable_package',
  'registry_denied',
  'secret_in_config',
  'tool_definition_changed',
  'prompt_injection_suspected',
  'tool_shadowing',
  'insecure_transport',
  'unpinned_package',
  'not_in_registry',
] as const;
export type McpIssueCode = (typeof MCP_ISSUE_CODES)[number];

export type McpSeverity = 'critical' | 'high' | 'medium' | 'low';

/**
 * A tool as reported (by `--introspect`), its description and inputSchema redacted before storing. The inputSchema is
 * kept as JSON text (null when none): JSON Schemas are full of `$schema`/`$ref` keys that FerretDB refuses as field
 * names. storedInputSchema() (storage/mcp-scans.ts) reads it back.
 */
export interface McpStoredTool {
  name: string;
  description: string | null;
  inputSchema: string | null;
}

/**
 * One configured server of an MCP scan as stored: args, url and command redacted (src/shared/mcp/redact.ts), env and
 * header *names* only, and what the upload found secret (`secrets`: `env:NAME`, `header:NAME`, `args`, `url`,
 * `command`) for secret_in_config, so no value is needed later.
 */
export interface McpStoredServer {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  command: string | null;
  args: string[];
  url: string | null;
  envNames: string[];
  headerNames: string[];
  secrets: string[];
  tools: McpStoredTool[] | null;
}

export interface McpIssueDoc {
  code: McpIssueCode;
  severity: McpSeverity;
  message: string;
  serverId: string;
  tool?: string;
  details?: Record<string, unknown>;
}
