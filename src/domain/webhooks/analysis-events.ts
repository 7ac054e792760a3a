// The analysis.expired webhook event (docs/integrations.md): one event per announcement of analyses that reached
// their expiry (the hourly reconciliation, activities/triage-reconcile.ts), listing the open alerts they were on as
// the API presents them now, each webhook receiving the alerts its filters keep (alert-events.ts alertsForWebhook).
// Pure.
import { MAX_EVENT_ALERTS } from './alert-events';

/** The raw body of an analysis.expired event to one webhook; key order fixed (id, type, createdAt, data). */
export function analysisExpiredBody(
  e: { id: string; type: string; createdAt: string },
  alerts: readonly unknown[],
): string {
  const shown = alerts.slice(0, MAX_EVENT_ALERTS);
  return JSON.stringify({
    id: e.id,
    type: e.type,
    createdAt: e.createdAt,
    data: { alerts: shown, truncated: alerts.length - shown.length },
  });
}
