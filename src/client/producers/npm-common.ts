// Helpers shared by the package-lock.json producers (npm-lock.ts for lockfileVersion 2 and 3, npm-lock-v1.ts for 1).
// The lockfile is untrusted input: every field that is read is checked here, so that a malformed file ends in an
// InputError naming it, never in a TypeError deep in the graph code.
import { posix } from 'node:path';
import { InputError } from '../errors';

export type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Code-unit order, the same in every locale (ids and paths are compared, not shown). */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const sortedUnique = (xs: Iterable<string>): string[] => [...new Set(xs)].sort(byCodeUnit);

/** The manifest sections a package.json declares dependencies in; each becomes a root context. */
export const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
export type Section = (typeof SECTIONS)[number];

/** What npm installs for a package that is depended upon (npm 7+ installs peers too); never devDependencies. */
export const RUNTIME_SECTIONS: readonly Section[] = ['dependencies', 'optionalDependencies', 'peerDependencies'];

/** An InputError whose message starts with the file's path, as every producer error must. */
export const inputError = (file: string, what: string): InputError => new InputError(`${file}: ${what}`);

/** A JSON member path for messages: packages["node_modules/a"].version. */
export const member = (...keys: string[]): string =>
  keys.map((k, i) => (i === 0 ? k : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');

/** The text of the lockfile as JSON; InputError when it is not. */
export function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw inputError(file, `not valid JSON (${(err as Error).message})`);
  }
}

/** A string field that may be absent; anything else there is a malformed file. */
export function optionalString(file: string, o: Obj, field: string, where: () => string): string | undefined {
  const v = o[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw inputError(file, `${where()}.${field} must be a string`);
  return v;
}

/** The names of a dependency map (name → range); an absent map is empty, anything but a map is malformed. */
export function dependencyNames(file: string, o: Obj, field: string, where: () => string): string[] {
  const v = o[field];
  if (v === undefined) return [];
  if (!isObject(v)) throw inputError(file, `${where()}.${field} must be an object of name → version range`);
  return Object.keys(v);
}

/** The folder of the lockfile, relative to the project root: "." at the root. */
export const lockDir = (lockPath: string): string => posix.dirname(lockPath);

/** A first-party folder's path relative to the project root, from its path relative to the lockfile's folder. */
export const modulePath = (dir: string, folder: string): string => posix.normalize(posix.join(dir, folder)) || '.';

/** Its package.json, relative to the project root. */
export const manifestOf = (dir: string, folder: string): string => posix.join(dir, folder, 'package.json');

/** A long list cut for a warning: "a, b, c and 12 more" (total: the length of the list `items` was cut from). */
export function someOf(items: string[], total = items.length, max = 10): string {
  const shown = items.slice(0, max);
  return total <= shown.length ? shown.join(', ') : `${shown.join(', ')} and ${total - shown.length} more`;
}
