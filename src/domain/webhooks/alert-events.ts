// The alert webhook events (alert.opened, alert.fixed, alert.reopened): one event per tracked scan or re-match that
// changed alerts, listing them (at most MAX_EVENT_ALERTS, then `truncated`), each webhook receiving the alerts its
// filters keep (`minSeverity`, `projects`); a webhook whose filters keep none receives nothing. Pure.
import { severityRank, type Severity } from '../../shared/types';

export const MAX_EVENT_ALERTS = 500;

export interface AlertFilterOf {
  minSeverity?: Severity | null;
  projects?: readonly string[] | null;
}

/** The alerts a webhook's filters keep, most severe first (then by id). */
export function alertsForWebhook<A extends { id: string; projectId: string; severity: Severity }>(
  alerts: readonly A[],
  hook: AlertFilterOf,
): A[] {
  const min = hook.minSeverity ? severityRank(hook.minSeverity) : Infinity;
  return alerts
    .filter((a) => severityRank(a.severity) <= min && (!hook.projects || hook.projects.includes(a.projectId)))
    .sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export interface AlertEventData {
  project: string;
  ecosystem: string;
  /** The tracked scan the move came from; `trigger` says whether a scan or a re-match after an advisory import. */
  scanId: string;
  trigger: 'scan' | 'rematch';
  generation: string | null;
}

/** The raw body of an alert event to one webhook; key order fixed (id, type, createdAt, data). */
export function alertEventBody(
  e: { id: string; type: string; createdAt: string },
  data: AlertEventData,
  alerts: readonly unknown[],
): string {
  const shown = alerts.slice(0, MAX_EVENT_ALERTS);
  return JSON.stringify({
    id: e.id,
    type: e.type,
    createdAt: e.createdAt,
    data: {
      project: data.project,
      ecosystem: data.ecosystem,
      scanId: data.scanId,
      trigger: data.trigger,
      generation: data.generation,
      alerts: shown,
      truncated: alerts.length - shown.length,
    },
  });
}
