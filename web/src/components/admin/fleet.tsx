// Pieces shared by the host and gateway pages: labels as text chips, labels typed one key=value
// a line, the tabs between a list and its tokens, the expiry choices of a token, and the line that says how to use a
// token. Text only: hostnames, names and labels are user-controlled, every one is a text node.
import { useLocation } from 'preact-iso';
import { BASE } from '../../paths';
import type { Labels } from '../../types';
import './admin.css';

/** Labels as chips, `key=value` each, sorted by key; `none` when there is none. */
export function LabelChips({ labels, label }: { labels: Labels | null | undefined; label: string }) {
  const pairs = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!pairs.length) return <span class="muted">none</span>;
  return (
    <ul class="chips" aria-label={label}>
      {pairs.map(([k, v]) => (
        <li key={k} class="chip">
          {k}={v}
        </li>
      ))}
    </ul>
  );
}

/**
 * Labels typed one `key=value` a line (blank lines skipped; the key up to the first "="). Only the shape is checked
 * here: the server decides what a key and a value may hold, and its 422 is shown as it words it.
 */
export function parseLabelLines(text: string): { labels: Labels } | { error: string } {
  const labels: Labels = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const at = line.indexOf('=');
    if (at <= 0) return { error: `Labels, line ${i + 1}: write key=value (for example env=prod).` };
    const key = line.slice(0, at).trim();
    if (key in labels) return { error: `Labels, line ${i + 1}: the key ${key} is given twice.` };
    labels[key] = line.slice(at + 1).trim();
  }
  return { labels };
}

/** Links between a list and its tokens page (each its own URL); the current one is marked. */
export function SubNav({ label, links }: { label: string; links: { href: string; text: string }[] }) {
  const { path } = useLocation();
  return (
    <nav class="subnav" aria-label={label}>
      <ul>
        {links.map((l) => (
          <li key={l.href}>
            <a href={l.href} aria-current={path === l.href ? 'page' : undefined}>
              {l.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export const HOSTS_PATH = `${BASE}/hosts`;
export const REGISTRATION_TOKENS_PATH = `${BASE}/hosts/registration-tokens`;
export const GATEWAYS_PATH = `${BASE}/gateways`;
export const ENROLLMENT_TOKENS_PATH = `${BASE}/gateways/enrollment-tokens`;

/** Hosts and their registration tokens (tokens are for admins and owners: the others see no tabs). */
export function HostsNav() {
  return (
    <SubNav
      label="Host pages"
      links={[
        { href: HOSTS_PATH, text: 'Hosts' },
        { href: REGISTRATION_TOKENS_PATH, text: 'Registration tokens' },
      ]}
    />
  );
}

/** Gateways and their enrollment tokens. */
export function GatewaysNav() {
  return (
    <SubNav
      label="Gateway pages"
      links={[
        { href: GATEWAYS_PATH, text: 'Gateways' },
        { href: ENROLLMENT_TOKENS_PATH, text: 'Enrollment tokens' },
      ]}
    />
  );
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface ExpiryChoice {
  value: string;
  label: string;
  /** Milliseconds from now; undefined: the server's default (24 hours). */
  ms?: number;
}

/**
 * The lifetimes offered for a token whose longest is `maxDays` (30 days for registration tokens, 7 for
 * enrollment tokens; 24 hours when none is sent). The longest is sent a few minutes short of the bound, so that a
 * browser clock slightly ahead of the server's does not cross it.
 */
export function expiryChoices(maxDays: number): ExpiryChoice[] {
  const out: ExpiryChoice[] = [
    { value: '1h', label: '1 hour', ms: HOUR },
    { value: '1d', label: '24 hours (the default)' },
  ];
  for (const d of [3, 7, 30]) if (d < maxDays) out.push({ value: `${d}d`, label: `${d} days`, ms: d * DAY });
  out.push({ value: `${maxDays}d`, label: `${maxDays} days (the longest)`, ms: maxDays * DAY - 5 * 60_000 });
  return out;
}

/** The `expiresAt` to send for a choice (none: the server's default). */
export function expiresAtOf(choices: ExpiryChoice[], value: string, now = Date.now()): { expiresAt?: string } {
  const c = choices.find((x) => x.value === value);
  return c?.ms ? { expiresAt: new Date(now + c.ms).toISOString() } : {};
}

/** How to use a token just created: where to keep it, and the command that uses it against this service. */
export function HowToUse({ command, who }: { command: string; who: string }) {
  return (
    <p class="howto">
      How to use it: save it to a file only {who} can read, then run <code>{command}</code>
    </p>
  );
}

/** This service's URL, as the sidecar and the gateway are told it (the origin the app is served from). */
export const serverUrl = (): string => window.location.origin;
