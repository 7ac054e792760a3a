// Small display pieces shared by the views. Text only: every value from the API is rendered as a text node.
import { advisoryLinks } from '../advisories';
import type { ScanStatus, Severity, SeverityCounts } from '../types';
import { SEVERITIES } from '../types';

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span class={`sev sev-${severity}`}>{severity}</span>;
}

export function Counts({
  counts,
  suppressed,
}: {
  counts: SeverityCounts | null | undefined;
  suppressed?: number | null;
}) {
  if (!counts) return <span class="muted">no counts yet</span>;
  return (
    <span class="counts">
      {SEVERITIES.map((s) => (
        <span key={s} class={`count sev-${s}${counts[s] === 0 ? ' count-zero' : ''}`} title={s}>
          <span class="count-label">{s}</span> {counts[s]}
        </span>
      ))}
      {suppressed !== undefined && suppressed !== null ? (
        <span class={`count${suppressed === 0 ? ' count-zero' : ''}`}>suppressed {suppressed}</span>
      ) : null}
    </span>
  );
}

const FAILURES: Record<string, string> = {
  unsupported_ecosystem: 'the ecosystem is not supported',
  attribution_limit_exceeded: 'the derived paths exceed the per-scan limit; upload in parts (multipart) instead',
  internal_error: 'an internal error; upload again later',
};

export function ScanStatusText({ status, failureReason }: { status: ScanStatus; failureReason?: string | null }) {
  return (
    <span class={`status status-${status}`}>
      {status}
      {status === 'failed' && failureReason ? `: ${FAILURES[failureReason] ?? failureReason}` : ''}
    </span>
  );
}

export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const d = new Date(iso);
  return <time dateTime={iso}>{d.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>;
}

/** An advisory id, then links to where it is published (GitHub, NVD, OSV), each opening a new tab. */
export function AdvisoryLinks({ id }: { id: string }) {
  const links = advisoryLinks(id);
  return (
    <>
      {id}
      {links.map((l) => (
        <span key={l.label} class="muted">
          {' · '}
          <a href={l.href} rel="noopener noreferrer" target="_blank">
            {l.label}
            <span class="visually-hidden"> page of {id} (opens a new tab)</span>
          </a>
        </span>
      ))}
    </>
  );
}
