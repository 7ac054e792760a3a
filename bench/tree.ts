// A built tree of the service that the benchmarks can run: this one, or another commit built in a scratch folder
// (`npm run bench -- --against REF`). The benchmark code is always this tree's; what runs under it (the API and
// worker processes, and the storage functions that seed their database) is the tree's own, so that each tree reads
// and writes data in its own stored forms.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../src/storage/mongo';

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface ServiceTree {
  /** The tree's folder (dist/ inside holds the built service). */
  root: string;
  /** 'this tree', or the commit's short id. */
  label: string;
  connectStore(uri: string, db: string): Promise<Store>;
  /** Indexes and migrations, as the tree's processes run them at start. */
  prepare(store: Store): Promise<void>;
  createOrgWithOwner(store: Store, name: string, email: string): Promise<{ org: { _id: string }; member: any }>;
  createApiKey(store: Store, key: Record<string, unknown>): Promise<{ secret: string }>;
  importAdvisories(store: Store, paths: string[]): Promise<unknown>;
}

/** This repository's root (the benchmarks run from dist/bench). */
export const THIS_ROOT = path.resolve(__dirname, '..', '..');

function fromDist(root: string, label: string): ServiceTree {
  const load = (rel: string): any => {
    const file = path.join(root, 'dist', rel);
    if (!fs.existsSync(file)) throw new Error(`${label}: ${path.join('dist', rel)} is missing (not built, or too old)`);
    return require(file);
  };
  const mongo = load('src/storage/mongo.js');
  const migrations = fs.existsSync(path.join(root, 'dist', 'src/storage/migrations/index.js'))
    ? load('src/storage/migrations/index.js')
    : undefined;
  return {
    root,
    label,
    connectStore: (uri, db) => mongo.connectStore(uri, db),
    prepare: (store) => (migrations ? migrations.prepareStore(store) : mongo.ensureIndexes(store)),
    createOrgWithOwner: (store, name, email) => load('src/storage/accounts.js').createOrgWithOwner(store, name, email),
    createApiKey: (store, key) => load('src/storage/api-keys.js').createApiKey(store, key),
    importAdvisories: (store, paths) => load('src/advisories/import.js').importAdvisories(store, paths),
  };
}

export const thisTree = (): ServiceTree => fromDist(THIS_ROOT, 'this tree');
export const loadTree = (root: string): ServiceTree =>
  path.resolve(root) === THIS_ROOT ? thisTree() : fromDist(root, path.basename(root).slice(0, 9));

const git = (...args: string[]) => execFileSync('git', ['-C', THIS_ROOT, ...args], { encoding: 'utf8' }).trim();

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${cwd} exited ${r.status}`);
}

/**
 * Commit `ref` checked out and built in a scratch folder (kept per commit under the system's temporary folder, so a
 * second comparison with the same commit starts at once). Its dependencies are this tree's when its package-lock.json
 * and patches are the same, else installed with `npm ci` (`npm install` where its lockfile is out of step).
 */
export function buildTree(ref: string): ServiceTree {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join(os.tmpdir(), 'scanner-bench-trees', sha);
  const done = path.join(dir, '.built');
  if (!fs.existsSync(done)) {
    console.log(`bench: building ${ref} (${sha.slice(0, 9)}) in ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${THIS_ROOT}" archive ${sha} | tar -x -C "${dir}"`]);
    const same = spawnSync('git', ['-C', THIS_ROOT, 'diff', '--quiet', sha, '--', 'package-lock.json', 'patches']);
    if (same.status === 0) fs.symlinkSync(path.join(THIS_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    else {
      try {
        run('npm', ['ci', '--no-audit', '--no-fund'], dir);
      } catch {
        // A lockfile out of step with its package.json (it happens in old commits): installed from package.json.
        run('npm', ['install', '--no-audit', '--no-fund'], dir);
      }
    }
    // The tools the tree's processes may look for (the Temporal CLI, FerretDB): this tree's, where it keeps them.
    if (fs.existsSync(path.join(THIS_ROOT, '.tools')))
      fs.symlinkSync(path.join(THIS_ROOT, '.tools'), path.join(dir, '.tools'));
    run('npm', ['run', '-s', 'build'], dir);
    fs.writeFileSync(done, `${new Date().toISOString()}\n`);
  }
  const tree = fromDist(dir, sha.slice(0, 9));
  return { ...tree, label: `${ref === sha ? sha.slice(0, 9) : `${ref} (${sha.slice(0, 9)})`}` };
}
