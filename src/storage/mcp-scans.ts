// MCP scans: stored at upload, already redacted (src/http/mcp/scan-body.ts), status queued; the MCP
// scan workflow processes them. A tool's inputSchema is stored as its JSON text: FerretDB refuses field names that
// start with `$` or hold a `.`, and JSON Schemas are full of them ($schema, $ref, $defs, "a.b" properties).
import type { McpScanDoc, McpStoredTool } from './documents/mcp';
import type { Store } from './mongo';

export async function insertMcpScan(store: Store, doc: McpScanDoc): Promise<void> {
  await store.c.mcpScans.insertOne(doc);
}

/** The scan, if it belongs to the organization (another organization's id is not found, like an unknown one). */
export async function findMcpScan(store: Store, orgId: string, id: string): Promise<McpScanDoc | null> {
  const doc = await store.c.mcpScans.findOne({ _id: id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** The inputSchema of a stored tool as a value again (stored as JSON text, or null). */
export function storedInputSchema(tool: Pick<McpStoredTool, 'inputSchema'>): unknown {
  const s = tool.inputSchema;
  if (typeof s !== 'string') return s ?? null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
