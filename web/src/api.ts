// The one API client of the web app. Every call goes to the same origin's /v1 with the session cookie (HttpOnly,
// never visible here) and the X-Svc-App header that makes the server accept that cookie. Nothing
// is kept in localStorage or sessionStorage.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

let onUnauthorized: (() => void) | undefined;

/** What to do when any call answers 401 (the shell sends the user to the sign-in view, keeping the URL). */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

export function url(path: string, query?: Query): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return `/v1${path}${s ? `?${s}` : ''}`;
}

async function call<T>(
  method: string,
  path: string,
  opts: { query?: Query; body?: unknown; signal?: AbortSignal; quiet401?: boolean; raw?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { 'X-Svc-App': '1', Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url(path, opts.query), {
    method,
    credentials: 'same-origin',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (res.ok && opts.raw) return text as T;
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data?.error;
    const retry = Number(res.headers.get('Retry-After'));
    const e = new ApiError(
      res.status,
      err?.code ?? 'http_error',
      err?.message ?? `HTTP ${res.status}`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
    if (res.status === 401 && !opts.quiet401) onUnauthorized?.();
    throw e;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => call<T>('GET', path, { query, signal }),
  post: <T>(path: string, body: unknown, opts: { quiet401?: boolean } = {}) => call<T>('POST', path, { body, ...opts }),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, { body }),
  put: <T>(path: string, body: unknown) => call<T>('PUT', path, { body }),
  del: <T = void>(path: string) => call<T>('DELETE', path),
  /** A document as the API sends it (an export), not parsed. */
  text: (path: string) => call<string>('GET', path, { raw: true }),
  /** For calls whose 401 means "wrong code", not "signed out" (sign-in). */
  call,
};

/** Reads every page of a list endpoint (small lists only: members, modules of a scan). */
export async function allPages<T>(path: string, key: string, query: Query = {}, max = 50): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null | undefined;
  for (let i = 0; i < max; i++) {
    const page = await api.get<Record<string, unknown> & { nextCursor: string | null }>(path, {
      ...query,
      limit: 200,
      cursor,
    });
    out.push(...((page[key] as T[]) ?? []));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return out;
}
