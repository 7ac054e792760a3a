// Request limits of POST /v1/sessions/codes (per email and per client address, always enforced).
// Fixed windows of 15 minutes: a window's requests are numbered 1..limit, each number taken once (storage inserts a
// document whose _id names it, exact on FerretDB too). Fixed windows let a client spend up to twice a limit across a
// window boundary; that is the price of counting without a read-modify-write.
export const LIMIT_WINDOW_MS = 15 * 60 * 1000;
export const CODES_PER_EMAIL = 5;
export const CODES_PER_ADDRESS = 20;

export interface LimitWindow {
  /** The window's number since the epoch. */
  index: number;
  /** When the window (and so the refusal) ends. */
  endsAt: Date;
}

export function limitWindow(now: Date, windowMs = LIMIT_WINDOW_MS): LimitWindow {
  const index = Math.floor(now.getTime() / windowMs);
  return { index, endsAt: new Date((index + 1) * windowMs) };
}

/** Whole seconds until the window ends, at least 1 (for Retry-After). */
export function retryAfterSeconds(now: Date, window: LimitWindow): number {
  return Math.max(1, Math.ceil((window.endsAt.getTime() - now.getTime()) / 1000));
}
