// Random structural mutations of snapshot documents, for property tests (domain and HTTP route alike).
import fc from 'fast-check';
import type { Doc } from './fixtures';

/** Every path to a value inside a document (objects and arrays alike). */
function paths(d: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(prefix);
  if (Array.isArray(d)) d.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (d && typeof d === 'object') for (const [k, x] of Object.entries(d)) paths(x, [...prefix, k], out);
  return out;
}

const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    'a\u0000b',
    'x'.repeat(2001),
    'app',
    'lib',
    'a',
    'b',
    'c',
    ':app',
    ':lib',
    'org.example:a@1.0.0',
    null,
    1,
    2,
    -1,
    [],
    {},
  ),
  fc.string({ maxLength: 8 }),
);

export type Mutation = { kind: 'set' | 'delete' | 'duplicate' | 'swap'; at: number; other: number; value: unknown };
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('set', 'delete', 'duplicate', 'swap'),
  at: fc.nat(),
  other: fc.nat(),
  value: interesting,
});

/** Applies a mutation at a path chosen by index; the document is changed in place. */
export function apply(doc: Doc, m: Mutation): Doc {
  const all = paths(doc);
  const path = all[m.at % all.length];
  if (path.length === 0) return m.kind === 'set' ? m.value : doc;
  const parent = path.slice(0, -1).reduce((o: Doc, k) => o[k], doc);
  const key = path[path.length - 1];
  const other = all[m.other % all.length].reduce((o: Doc, k) => (o == null ? o : o[k]), doc);
  const list = Array.isArray(parent) ? (parent as unknown[]) : undefined;
  if (m.kind === 'set') parent[key] = m.value;
  else if (m.kind === 'swap') parent[key] = structuredClone(other);
  else if (m.kind === 'delete') {
    if (list) list.splice(Number(key), 1);
    else delete parent[key];
  } else if (list) list.push(structuredClone(list[Number(key)]));
  else parent[`${key}2`] = parent[key];
  return doc;
}
