// Tool pinning: a tool's definition is hashed as SHA-256 hex of the RFC 8785 (JCS) canonical JSON of
// {name, description, inputSchema}, so that key order, whitespace and number spelling never change the hash while any
// change of wording or schema does. A missing description or inputSchema hashes as null.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export interface ToolDefinition {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}

/**
 * A stored tool (src/domain/mcp/audited.ts McpStoredTool: its inputSchema kept as JSON text, FerretDB refusing the
 * `$schema`/`$ref` field names of JSON Schemas) as the definition it was: the inputSchema parsed back (null when none,
 * or when the text does not parse). A value that is not a string is taken as it is.
 */
export function toolDefinition(tool: {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}): ToolDefinition & { description: string | null } {
  let schema: unknown = tool.inputSchema ?? null;
  if (typeof schema === 'string') {
    try {
      schema = JSON.parse(schema);
    } catch {
      schema = null;
    }
  }
  return { name: tool.name, description: tool.description ?? null, inputSchema: schema };
}

export function toolHash(tool: ToolDefinition): string {
  const canonical = canonicalize({
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
  });
  return createHash('sha256')
    .update(canonical ?? 'null', 'utf8')
    .digest('hex');
}
