// Shared by the npm producer tests: fixture inputs, the server's own validation of a part, and resolutions read
// back as labelled edges.
import fs from 'node:fs';
import path from 'node:path';
import type { LockfileInput, ProducedPart } from '../../../../src/client/producers/types';
import { InputError } from '../../../../src/client/errors';
import { validateSnapshot } from '../../../../src/domain/snapshot';
import type { SnapshotRoot } from '../../../../src/shared/types';
import { sharedDataPath } from '../../../../src/infra/shared-data';

export const FIXTURES = path.resolve(__dirname, '../../../fixtures/npm');
/** piscina's real package-lock.json, in the third-party data: read it inside describeWithSharedData. */
export const PISCINA = sharedDataPath('lockfiles', 'npm', 'piscinajs__piscina__package-lock.json');

/** A fixture's lockfile as the client would hand it over, optionally as if it sat in the subfolder `under`. */
export function fixtureInput(
  name: string,
  opts: { under?: string; text?: string; files?: Record<string, string | undefined> } = {},
): LockfileInput {
  const dir = path.join(FIXTURES, name);
  const prefix = opts.under ? `${opts.under}/` : '';
  return {
    path: `${prefix}package-lock.json`,
    text: opts.text ?? fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'),
    readFile(p) {
      if (opts.files && Object.hasOwn(opts.files, p)) return opts.files[p];
      if (!p.startsWith(prefix)) return undefined;
      const f = path.join(dir, p.slice(prefix.length));
      return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined;
    },
  };
}

export const lockOf = (name: string): Record<string, any> =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'package-lock.json'), 'utf8'));

/** The part as a full snapshot, through the exact bytes an upload would carry; throws what the server would answer. */
export function validatePart(part: ProducedPart): void {
  const snapshot = {
    schemaVersion: part.schemaVersion,
    project: 'p',
    ecosystem: part.ecosystem,
    manifests: part.manifests,
    ...(part.schemaVersion === 2 ? { modules: part.modules.map(({ manifest, ...m }) => m) } : {}),
    roots: part.roots,
    nodes: part.nodes,
  };
  const body = JSON.stringify(snapshot);
  validateSnapshot(JSON.parse(body), Buffer.byteLength(body));
}

export const rootOf = (part: ProducedPart, module: string, context: string): SnapshotRoot => {
  const r = part.roots.find((x) => x.module === module && x.context === context);
  if (!r)
    throw new Error(
      `no root ${module} ${context}; have ${part.roots.map((x) => `${x.module}/${x.context}`).join(', ')}`,
    );
  return r;
};

const label = (v: { module?: string | null; node?: string | null }) =>
  v.module != null ? `module:${v.module}` : String(v.node);

/** A resolution's edges as "label -> label" (label: node id, or module:path), sorted. */
export function edgesOf(root: SnapshotRoot): string[] {
  const vs = root.resolution!.vertices;
  const byId = new Map(vs.map((v) => [v.id, v]));
  return vs.flatMap((v) => v.dependencies.map((d) => `${label(v)} -> ${label(byId.get(d)!)}`)).sort();
}

/** The labels of a resolution's vertices, sorted (repeated when several install copies are vertices). */
export const verticesOf = (root: SnapshotRoot): string[] => root.resolution!.vertices.map(label).sort();

export const nodeById = (part: ProducedPart, id: string) => {
  const n = part.nodes.find((x) => x.id === id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
};

/** Throws an InputError (exit 2) whose message starts with the file's path and matches `what`; never a TypeError. */
export function expectInputError(f: () => unknown, what: RegExp, file: string): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  expect((err as Error).message.startsWith(`${file}: `)).toBe(true);
  expect((err as Error).message).toMatch(what);
}
