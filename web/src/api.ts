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
    if (res.status === 401 && !opts.quiet401) onUnauthorized?.();
    throw refusalOf(res, data);
  }
  return data as T;
}

/** A refusal as an ApiError: the code and message of the API's JSON error envelope (`data`), and Retry-After. */
function refusalOf(res: Response, data: any): ApiError {
  const err = data?.error;
  const retry = Number(res.headers.get('Retry-After'));
  return new ApiError(
    res.status,
    err?.code ?? 'http_error',
    err?.message ?? `HTTP ${res.status}`,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
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

/**
 * Downloads a file the API makes (an export such as the alerts CSV) and saves it as `name`. A plain link would not
 * do: the API takes the session cookie only with the X-Svc-App header, so the file is fetched as every call is, then
 * saved through an object URL and a temporary <a download>. A refusal is the API's JSON error envelope, thrown as an
 * ApiError (a 401 sends the user to sign-in, as any call). Resolves with the response's headers (`X-Truncated`).
 */
export async function downloadFile(path: string, query: Query, name: string): Promise<Headers> {
  const res = await fetch(url(path, query), {
    credentials: 'same-origin',
    headers: { 'X-Svc-App': '1', Accept: '*/*' },
  });
  if (!res.ok) {
    if (res.status === 401) onUnauthorized?.();
    throw refusalOf(res, await res.json().catch(() => null));
  }
  // the whole body first: a download cut short (the server can only stop sending) fails here, not as a partial file
  saveBlob(await res.blob(), name);
  return res.headers;
}

/** Saves a Blob as a file named `name` (an object URL and a temporary <a download>). */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

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
