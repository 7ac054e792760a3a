// The package.json files a yarn.lock needs beside it: yarn records the resolved packages, not which workspace asked
// for what in which section, so contexts come from the manifests. yarn.lock v1 does not even list the workspaces:
// they are the root manifest's `workspaces` patterns, expanded here (a `*` segment needs LockfileInput.listDir).
import { posix } from 'node:path';
import { inputError, isObject, parseJson } from './npm-common';
import type { LockfileInput } from './types';
import { YARN_SECTIONS, type YarnSection } from './yarn-graph';

export interface Manifest {
  name?: string;
  /** name → range per section, in file order. */
  sections: Record<YarnSection, Array<[string, string]>>;
  /** The `workspaces` patterns (an array, or {packages: [...]}). */
  workspaces: string[];
}

/** A package.json, checked; undefined when the file does not exist. */
export function readManifest(input: LockfileInput, path: string): Manifest | undefined {
  const text = input.readFile(path);
  if (text === undefined) return undefined;
  const json = parseJson(path, text);
  if (!isObject(json)) throw inputError(path, 'not a package.json (the top level is not an object)');
  const sections = {} as Manifest['sections'];
  for (const s of YARN_SECTIONS) {
    const v = json[s];
    sections[s] = [];
    if (v === undefined) continue;
    if (!isObject(v)) throw inputError(path, `${s} must be an object of name → version range`);
    for (const [name, range] of Object.entries(v)) {
      if (typeof range !== 'string') throw inputError(path, `${s}[${JSON.stringify(name)}] must be a string`);
      sections[s].push([name, range]);
    }
  }
  let ws = json.workspaces;
  if (isObject(ws)) ws = ws.packages;
  if (ws !== undefined && (!Array.isArray(ws) || ws.some((p) => typeof p !== 'string')))
    throw inputError(path, 'workspaces must be an array of folder patterns');
  return {
    ...(typeof json.name === 'string' && json.name !== '' ? { name: json.name } : {}),
    sections,
    workspaces: (ws as string[] | undefined) ?? [],
  };
}

const glob = (segment: string): RegExp =>
  new RegExp(`^${segment.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

/**
 * The workspace folders (relative to `dir`, the lockfile's folder, '/'-separated, sorted) that the patterns name and
 * that hold a package.json. Supported: exact paths and `*` within segments ("packages/*", "libs/ui-*"); `**` and
 * negations are reported in warnings and skipped.
 */
export function expandWorkspaces(input: LockfileInput, dir: string, patterns: string[], warnings: string[]): string[] {
  const found = new Set<string>();
  const at = (rel: string) => posix.join(dir, rel);
  for (const raw of patterns) {
    const pattern = posix.normalize(raw.replace(/^\.\//, '')).replace(/\/$/, '');
    if (pattern.startsWith('!') || pattern.includes('**')) {
      warnings.push(`workspace pattern ${JSON.stringify(raw)} is not supported and was skipped`);
      continue;
    }
    let folders = [''];
    for (const segment of pattern.split('/')) {
      if (!segment.includes('*')) {
        folders = folders.map((f) => (f ? `${f}/${segment}` : segment));
        continue;
      }
      if (!input.listDir) {
        warnings.push(
          `workspace pattern ${JSON.stringify(raw)} needs a folder listing, which this client did not provide: skipped`,
        );
        folders = [];
        break;
      }
      const re = glob(segment);
      folders = folders.flatMap((f) =>
        (input.listDir!(at(f || '.')) ?? [])
          .filter((n) => re.test(n) && !n.startsWith('.') && n !== 'node_modules')
          .map((n) => (f ? `${f}/${n}` : n)),
      );
    }
    for (const f of folders)
      if (f !== '' && f !== '.' && input.readFile(at(`${f}/package.json`)) !== undefined) found.add(f);
  }
  return [...found].sort();
}
