// An API refusal in words for the person using the app: the field it is about (when the server's message names
// one), and a sentence without field names or error codes. Pure: tested in test/browser/web-logic.test.ts.

/** The API's body fields in words, as a sentence's subject. */
const FIELD_WORDS: Record<string, string> = {
  name: 'The name',
  email: 'The email address',
  role: 'The role',
  scopes: 'The scopes',
  projects: 'The projects',
  expiresAt: 'The expiry date',
  label: 'The label',
  labels: 'The labels',
  cidrs: 'The address ranges',
  maxUses: 'The number of uses',
  url: 'The address',
  events: 'The events',
  reason: 'The reason',
  token: 'The token',
  code: 'The code',
  networkScope: 'The network scope',
  defaultBranch: 'The default branch',
  // the alerts list's filters
  project: 'The project',
  q: 'The search',
  team: 'The team',
  module: 'The module',
  // an alert's analysis (triage.ts)
  state: 'The state',
  justification: 'The justification',
  response: 'The response',
  detail: 'The detail',
  versions: 'The versions',
  ticketUrl: 'The ticket URL',
  alertIds: 'The selection',
};

/** A refusal's words that read on from the field's name ("must be in the future"); others follow a colon. */
const READS_ON = /^(must|is|are|has|have|should|cannot|may|needs?|was|were)\b/;

/** What a code means when the server's message alone would not say it. */
const CODE_WORDS: Record<string, string> = {
  insufficient_scope: 'You are not allowed to do this',
  not_found: 'It is not there any more (or not within your reach)',
  invalid_token: 'Your session has ended: sign in again',
  service_unavailable: 'The service is busy or restarting: try again in a moment',
  internal_error: 'The service failed on its side: try again, and tell an administrator if it persists',
};

export interface Refusal {
  /** The API field the refusal is about (`expiresAt`), when its message names one. */
  field?: string;
  /** The sentence to show. */
  text: string;
}

/** A sentence: a first plain word capitalised (never a value such as an email address), a full stop at the end. */
const sentence = (s: string) => {
  const t = s.trim();
  if (!t) return t;
  const first = /^[a-z]+(\s|$)/.test(t) ? t[0].toUpperCase() + t.slice(1) : t;
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

/**
 * The refusal of a call: `status`, `code` and `message` of the API's error envelope. A message `field: what` (the
 * server's form for a refused field) becomes "The <field in words> <what>." ("The <field>: <what>." when `what` does
 * not read on from it), with the field named apart so that a form shows it at its input; a field without words
 * here is named after the text, as the API names it. Never the error code.
 */
export function refusal(status: number, code: string, message: string): Refusal {
  if (status === 429) return { text: message };
  const named = /^([A-Za-z][\w.[\]]*): (.+)$/s.exec(message);
  if (named) {
    const [, path, what] = named;
    const field = path.split(/[.[]/)[0];
    const subject = FIELD_WORDS[field];
    if (code === 'missing_parameter') return { field, text: `${subject ?? `The field ${path}`} is required.` };
    // "email: x is already a member…" reads as a sentence of its own once the field is taken off
    if (code === 'already_member') return { field, text: sentence(what) };
    if (!subject) return { field, text: sentence(`${what} (${path})`) };
    return { field, text: sentence(READS_ON.test(what) ? `${subject} ${what}` : `${subject}: ${what}`) };
  }
  const meaning = CODE_WORDS[code];
  if (meaning && code === 'insufficient_scope') return { text: sentence(`${meaning}: ${message}`) };
  if (meaning) return { text: sentence(meaning) };
  return { text: sentence(message) };
}

/** The first date an expiry may take, as a date input's `min`: today (the key then ends at 23:59:59 UTC). */
export function firstExpiryDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
