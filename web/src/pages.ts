// The pure rules of a list read a page at a time and shown whole (usePages in hooks.ts), apart for unit tests.

/** The cursor to read with: the one `more` asked for, unless the list changed since (its key): then the first page. */
export function pageCursor(at: { key: string; cursor?: string }, key: string): string | undefined {
  return at.key === key ? at.cursor : undefined;
}

/** The rows shown once a page arrives: a first page replaces them, a later one is appended. */
export function withPage<T>(shown: T[], cursor: string | undefined, page: T[]): T[] {
  return cursor ? [...shown, ...page] : page;
}
