// Labels of hosts and registration tokens: a map of string to string. The bounds are this project's
// (the contract leaves them open; README "Hosts and gateways"): at most 64 labels, keys of 1 to 63 characters of
// [A-Za-z0-9._/-], values of at most 255 characters without control characters.
//
// Stored as sorted "key=value" strings (a key holds no "="): label keys may hold dots ("app.kubernetes.io/name"),
// which a MongoDB field path cannot address, while an array of pairs is matched by equality on any backend.

export type Labels = Record<string, string>;

export const MAX_LABELS = 64;
export const MAX_LABEL_KEY = 63;
export const MAX_LABEL_VALUE = 255;
export const LABEL_KEY = /^[A-Za-z0-9._/-]{1,63}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export class LabelError extends Error {}

/** Whether `s` is a label key. */
export const isLabelKey = (s: string): boolean => LABEL_KEY.test(s);

/** Why `v` is not a label value, or null when it is one. */
export function labelValueProblem(v: unknown): string | null {
  if (typeof v !== 'string') return 'must be a string';
  if (v.length > MAX_LABEL_VALUE) return `at most ${MAX_LABEL_VALUE} characters`;
  if (CONTROL.test(v)) return 'must not contain control characters';
  return null;
}

/** A request's labels: a JSON object of string values within the bounds above; throws LabelError naming the label. */
export function parseLabels(v: unknown): Labels {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new LabelError('must be an object of string values');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_LABELS) throw new LabelError(`at most ${MAX_LABELS} labels`);
  for (const [k, value] of entries) {
    if (!isLabelKey(k))
      throw new LabelError(
        `key ${JSON.stringify(k.slice(0, 80))}: 1 to ${MAX_LABEL_KEY} characters of A-Z a-z 0-9 . _ / -`,
      );
    const problem = labelValueProblem(value);
    if (problem) throw new LabelError(`${k}: ${problem}`);
  }
  // Object.fromEntries defines own properties: a "__proto__" key stays a label, never the object's prototype
  return Object.fromEntries(entries) as Labels;
}

/** `over` wins over `under` (a host's token labels over the ones it sends itself). */
export function mergeLabels(under: Labels, over: Labels): Labels {
  const out = new Map(Object.entries(under));
  for (const [k, v] of Object.entries(over)) out.set(k, v);
  return Object.fromEntries(out);
}

/** Labels as stored: "key=value" strings, sorted by key. */
export function toPairs(labels: Labels): string[] {
  return Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
}

/** Stored pairs back to the map. */
export function fromPairs(pairs: readonly string[]): Labels {
  return Object.fromEntries(
    pairs.map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i), p.slice(i + 1)];
    }),
  );
}

/**
 * One `label=key=value` filter of a list: the key up to the first "=", the value after it (possibly empty); null
 * when it is not of that form or its key or value would not be a label's.
 */
export function parseLabelFilter(s: string): string | null {
  const i = s.indexOf('=');
  if (i < 0) return null;
  const [k, v] = [s.slice(0, i), s.slice(i + 1)];
  if (!isLabelKey(k) || labelValueProblem(v)) return null;
  return `${k}=${v}`;
}
