// Tool pinning (platform.md §6): a tool's definition is hashed as SHA-256 hex of the RFC 8785 (JCS) canonical JSON of
// {name, description, inputSchema}, so that key order, whitespace and number spelling never change the hash while any
// change of wording or schema does. A missing description or inputSchema hashes as null.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export interface ToolDefinition {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}

export function toolHash(tool: ToolDefinition): string {
  const canonical = canonicalize({ name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema ?? null });
  return createHash('sha256').update(canonical ?? 'null', 'utf8').digest('hex');
}
