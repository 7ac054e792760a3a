// FerretDB stores through PostgreSQL, whose text cannot hold U+0000: a query or insert carrying a NUL fails in the
// database, which answered 500 before (found by the contract test, test/integration/contract.test.ts). No stored
// id, email or name contains one, so a NUL is refused here, with the status the endpoint gives any unknown value.
import type { Context } from 'koa';
import { invalidParameter, notFound } from '../domain/errors';

export const hasNul = (s: string): boolean => s.includes('\0');

/**
 * Whether any string of a parsed JSON value (keys included) holds a NUL. Walked with a stack of its own, not by
 * recursion: JSON.parse accepts nesting tens of thousands deep ("[[[[...]]]]" in 64 KB), which would exhaust the call
 * stack (a RangeError, answered 500).
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (hasNul(v)) return true;
    } else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (hasNul(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/** A path id: one holding a NUL names nothing, so 404 not_found as for any unknown id (`what` names the kind). */
export function pathId(ctx: Context, name: string, what: string): string {
  const id = String(ctx.params[name]);
  if (hasNul(id)) throw notFound(`${what} ${JSON.stringify(id)}`);
  return id;
}

/** A query value holding a NUL: 422 invalid_parameter naming the parameter. */
export function rejectNulQuery(name: string, v: string): string {
  if (hasNul(v)) throw invalidParameter(name, 'must not contain NUL characters');
  return v;
}
