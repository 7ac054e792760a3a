// The workflow bundle's entry: every workflow the worker registers.
export { scanWorkflow } from './scan';
export { advisoryRefreshWorkflow } from './advisory-refresh';
export { intelRefreshWorkflow } from './intel-refresh';
export { alertMetricsDailyWorkflow } from './alert-metrics';
export { webhookEventWorkflow } from './webhook';
export { mcpScanWorkflow } from './mcp-scan';
export { alertRematchWorkflow, alertUpgradeWorkflow } from './alert-rematch';
export { triageReconcileWorkflow, triageSweepWorkflow } from './triage-reconcile';
