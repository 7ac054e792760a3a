// Why a feed file is refused. An intelligence feed is taken whole or not at all: a malformed or truncated file is
// refused with a reason naming what is wrong, and the previous generation stays (docs/intelligence.md).

/** The two feeds: CISA's Known Exploited Vulnerabilities catalog and FIRST's EPSS scores. */
export type IntelKind = 'kev' | 'epss';

export const INTEL_KINDS: readonly IntelKind[] = ['kev', 'epss'];

export const FEED_NAMES: Record<IntelKind, string> = { kev: 'KEV catalog', epss: 'EPSS scores' };

/** A feed file that is not taken: `reason` says what is wrong with it (where in the file, when it can tell). */
export class FeedRefused extends Error {
  constructor(
    readonly kind: IntelKind,
    readonly reason: string,
  ) {
    super(`${FEED_NAMES[kind]} refused: ${reason}`);
    this.name = 'FeedRefused';
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date written YYYY-MM-DD (a real day: 2025-02-30 is not one). */
export function isIsoDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1];
}

/** Text of a feed file: UTF-8 only (invalid bytes refuse it), a byte order mark dropped. */
export function feedText(kind: IntelKind, input: Uint8Array | string): string {
  let text: string;
  if (typeof input === 'string') text = input;
  else
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch (err) {
      // A RangeError: more text than one JavaScript string holds (about 512 MiB).
      throw new FeedRefused(kind, err instanceof RangeError ? 'too large to read as text' : 'not UTF-8 text');
    }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
