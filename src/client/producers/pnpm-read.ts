// Reads a pnpm-lock.yaml (lockfileVersion 6.x, pnpm 8; 9.0, pnpm 9 and 10) into one shape for pnpm-lock.ts: the
// importers (first-party folders) with their sections, and the resolved package instances ("snapshots") keyed the
// way v9 keys them. The lockfile is untrusted input: every field read is checked here, so that a malformed file ends
// in an InputError naming it, never in a TypeError deep in the graph code.
//
// The two versions differ only in where things are:
//   v9  `packages` holds metadata per name@version, `snapshots` the instances, keyed name@version plus a peer
//       suffix ("use-sync-external-store@1.5.0(react@18.3.1)"); references are "1.5.0(react@18.3.1)", or
//       "is-even@1.0.0" for an alias, or "link:../lib".
//   v6  `packages` holds both, keyed "/name@version(peers)"; an alias reference is "/is-even@1.0.0". A project
//       without workspaces has its sections at the top level instead of under `importers["."]`.
// Keys are normalised to the v9 form (the leading "/" dropped), so the graph code knows one form.
import { parse } from 'yaml';
import { type Obj, inputError, isObject, member } from './npm-common';
import { readPnpmYaml } from './pnpm-yaml';

/** The importer sections that become root contexts (pnpm records no peerDependencies section for importers). */
export const PNPM_SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
export type PnpmSection = (typeof PNPM_SECTIONS)[number];
/** What a package or a linked workspace member needs at runtime: never devDependencies. */
export const PNPM_RUNTIME: readonly PnpmSection[] = ['dependencies', 'optionalDependencies'];

/** A reference: a snapshot key ("a@1.0.0(b@2.0.0)") or a link ("link:../lib", relative to the referrer). */
export type Ref = string;

export interface Importer {
  /** Its folder relative to the lockfile's folder, as the lockfile writes it ("." or "packages/app"). */
  key: string;
  sections: Record<PnpmSection, Ref[]>;
}

export interface Snapshot {
  /** Node id: name@version without the peer suffix (the version pnpm recorded for git, tarball and file packages). */
  id: string;
  /** Its runtime references (dependencies, then optionalDependencies). */
  deps: Ref[];
}

export interface PnpmLock {
  importers: Importer[];
  snapshots: Map<string, Snapshot>;
  /** Every package of the lockfile by node id, for saying which ones no resolution reached. */
  packageIds: Set<string>;
}

/** The lockfile's text as YAML; InputError when it is not. */
export function parseYaml(file: string, text: string): unknown {
  // pnpm's own style first, in a few milliseconds; anything else (and every error) is the yaml package's, which
  // takes hundreds of milliseconds on a large lockfile.
  const fast = readPnpmYaml(text);
  if (fast !== undefined) return fast;
  try {
    // logLevel 'error': a YAML error throws; warnings (none are expected from pnpm) are not printed on the console.
    return parse(text, { logLevel: 'error' });
  } catch (err) {
    throw inputError(file, `not valid YAML (${(err as Error).message.split('\n')[0].replace(/:$/, '')})`);
  }
}

/** The part of a snapshot key before its peer suffix: "a@1.0.0(b@2.0.0)" → "a@1.0.0". */
export const baseKey = (key: string): string => {
  const i = key.indexOf('(');
  return i === -1 ? key : key.slice(0, i);
};

/** "name@version" split after the name (a scoped name starts with "@"); undefined when there is no version. */
function splitKey(key: string): { name: string; version: string } | undefined {
  const at = key.indexOf('@', 1);
  if (at <= 0 || at === key.length - 1) return undefined;
  return { name: key.slice(0, at), version: key.slice(at + 1) };
}

/** A dependency's reference as a snapshot key or a link, after pnpm's own refToRelative. */
function refOf(v6: boolean, name: string, ref: string): Ref {
  if (ref.startsWith('link:')) return ref;
  if (v6 && ref.startsWith('/')) return ref.slice(1);
  if (ref.startsWith('@')) return ref; // a scoped alias target: "@s/a@1.0.0"
  const at = ref.indexOf('@');
  if (at === -1) return `${name}@${ref}`;
  // "is-even@1.0.0" is an alias; "1.0.0(b@2.0.0)" and "file:x@y" are not (the @ comes after a "(" or a ":").
  const colon = ref.indexOf(':');
  const paren = ref.indexOf('(');
  if ((colon === -1 || at < colon) && (paren === -1 || at < paren)) return ref;
  return `${name}@${ref}`;
}

/** A map field that may be absent (or empty, written as nothing); anything else there is a malformed file. */
function optionalMap(file: string, o: Obj, field: string, where: () => string): Obj | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw inputError(file, `${where()}.${field} must be a mapping`);
  return v;
}

/** A snapshot's or v6 package's dependency map (name → reference string). */
function snapshotRefs(file: string, v6: boolean, o: Obj, where: () => string): Ref[] {
  const out: Ref[] = [];
  for (const s of PNPM_RUNTIME) {
    const deps = optionalMap(file, o, s, where);
    if (!deps) continue;
    for (const name of Object.keys(deps)) {
      const ref = deps[name];
      if (typeof ref !== 'string') throw inputError(file, `${member(where(), s, name)} must be a string`);
      out.push(refOf(v6, name, ref));
    }
  }
  return out;
}

/** An importer's sections: name → {specifier, version}; the resolved version is what counts (also for catalog:). */
function readImporter(file: string, v6: boolean, key: string, o: Obj, where: () => string): Importer {
  const sections = {} as Record<PnpmSection, Ref[]>;
  for (const s of PNPM_SECTIONS) {
    const deps = optionalMap(file, o, s, where);
    sections[s] = [];
    if (!deps) continue;
    for (const name of Object.keys(deps)) {
      const d = deps[name];
      const version = isObject(d) ? d.version : undefined;
      if (typeof version !== 'string') throw inputError(file, `${member(where(), s, name)}.version must be a string`);
      sections[s].push(refOf(v6, name, version));
    }
  }
  return { key, sections };
}

/** The node id of a package entry: its key's name@version, unless pnpm recorded name or version fields (aliases in
 *  v6, git, tarball and file packages, whose key holds a URL or path rather than a version). */
function idOf(file: string, key: string, meta: Obj | undefined, where: () => string): string {
  const split = splitKey(baseKey(key));
  const name = meta && typeof meta.name === 'string' && meta.name !== '' ? meta.name : split?.name;
  const version = meta && typeof meta.version === 'string' && meta.version !== '' ? meta.version : split?.version;
  if (name === undefined || version === undefined)
    throw inputError(file, `${where()}: cannot tell the package name and version from the key`);
  return `${name}@${version}`;
}

/** The lockfile object → importers and snapshots, keys in the v9 form. */
export function readLock(file: string, lock: Obj, major: 6 | 9): PnpmLock {
  const v6 = major === 6;
  const importers: Importer[] = [];
  const imp = optionalMap(file, lock, 'importers', () => 'lockfile');
  if (imp) {
    for (const key of Object.keys(imp)) {
      const o = imp[key];
      const where = () => member('importers', key);
      if (o !== null && !isObject(o)) throw inputError(file, `${where()} must be a mapping`);
      importers.push(readImporter(file, v6, key, o ?? {}, where));
    }
  } else {
    // v6 without workspaces (and a v9 file without importers, which pnpm does not write): the top level is ".".
    importers.push(readImporter(file, v6, '.', lock, () => 'lockfile'));
  }

  const packages = optionalMap(file, lock, 'packages', () => 'lockfile') ?? {};
  const section = v6 ? 'packages' : 'snapshots';
  const snaps = v6 ? packages : (optionalMap(file, lock, 'snapshots', () => 'lockfile') ?? {});
  const snapshots = new Map<string, Snapshot>();
  const packageIds = new Set<string>();
  const entry = (map: Obj, key: string, where: () => string): Obj => {
    const o = map[key];
    if (o === null) return {}; // "key:" with nothing after it
    if (!isObject(o)) throw inputError(file, `${where()} must be a mapping`);
    return o;
  };
  // v9: a package without a snapshot is a package too (it is then reached by nothing, and said so).
  if (!v6) {
    for (const key of Object.keys(packages)) {
      const where = () => member('packages', key);
      packageIds.add(idOf(file, key, entry(packages, key, where), where));
    }
  }
  for (const raw of Object.keys(snaps)) {
    const where = () => member(section, raw);
    const o = entry(snaps, raw, where);
    const key = v6 ? raw.replace(/^\//, '') : raw;
    const meta = v6 ? o : isObject(packages[baseKey(key)]) ? (packages[baseKey(key)] as Obj) : undefined;
    const id = idOf(file, key, meta, where);
    packageIds.add(id);
    snapshots.set(key, { id, deps: snapshotRefs(file, v6, o, where) });
  }
  return { importers, snapshots, packageIds };
}

/**
 * The line of every entry key of the top-level `packages:` mapping ("  name@version:" or "  '/@s/a@1.0.0':"), keys
 * normalised like readLock's, in one pass over the text without a position-tracking parser: pnpm writes block YAML
 * with a two-space indent, so an entry key is a line indented by exactly two spaces inside that section.
 */
export function packageLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const n = text.length;
  let inPackages = false;
  let line = 0;
  for (let pos = 0; pos < n;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    line++;
    let e = end;
    if (e > pos && text.charCodeAt(e - 1) === 13) e--; // \r of CRLF
    const c0 = text.charCodeAt(pos);
    if (e > pos && c0 !== 32 && c0 !== 35) {
      // A top-level key (not a comment) opens a section.
      inPackages = text.startsWith('packages:', pos);
    } else if (
      inPackages &&
      e - pos > 3 &&
      c0 === 32 &&
      text.charCodeAt(pos + 1) === 32 &&
      text.charCodeAt(pos + 2) !== 32 &&
      text.charCodeAt(pos + 2) !== 35
    ) {
      let key = keyOf(text.slice(pos + 2, e));
      if (key !== undefined) {
        if (key.startsWith('/')) key = key.slice(1);
        if (!lines.has(key)) lines.set(key, line);
      }
    }
    pos = end + 1;
  }
  return lines;
}

/** The key of "key:", "key: {...}", "'key':" or "\"key\":"; undefined when the line is not a mapping key. */
function keyOf(s: string): string | undefined {
  const q = s.charCodeAt(0);
  if (q === 39) {
    // 'single quoted': '' is a quote
    let i = 1;
    let out = '';
    for (;;) {
      const j = s.indexOf("'", i);
      if (j === -1) return undefined;
      out += s.slice(i, j);
      if (s.charCodeAt(j + 1) === 39) {
        out += "'";
        i = j + 2;
      } else return s.charCodeAt(j + 1) === 58 ? out : undefined;
    }
  }
  if (q === 34) {
    const m = /^("(?:[^"\\]|\\.)*"):/.exec(s);
    if (!m) return undefined;
    try {
      return JSON.parse(m[1]) as string;
    } catch {
      return undefined;
    }
  }
  const colon = s.endsWith(':') ? s.length - 1 : s.indexOf(': ');
  return colon > 0 ? s.slice(0, colon) : undefined;
}
