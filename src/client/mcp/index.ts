// MCP auditing on the client (issue 19). The entry point of `scanner mcp scan`:
// discoverMcpConfigs(env) → { clients, warnings }, `clients` being the body's `clients` of POST /v1/mcp/scans.
export {
  discoverMcpConfigs,
  processDiscoveryEnv,
  type McpDiscovery,
  type McpDiscoveryEnv,
  type McpDiscoveryOptions,
  type McpDiscoveryWarning,
} from './discover';
export { userLocations, projectLocations, type ConfigLocation } from './locations';
export { readServer, readServerLaunch, type McpLaunch } from './servers';
