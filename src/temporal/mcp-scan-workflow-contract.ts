// Names shared by the MCP scan starter (src/temporal/mcp.ts) and its workflow (workflows/mcp-scan.ts). Imported by
// workflow code: no Node APIs.

export const MCP_SCAN_WORKFLOW = 'mcpScanWorkflow';

export interface McpScanWorkflowInput {
  scanId: string;
}

export interface McpScanWorkflowResult {
  scanId: string;
  status: 'completed' | 'failed';
  servers?: number;
  issues?: Record<string, number>;
}
