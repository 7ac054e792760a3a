// Gradle dependency lockfile (gradle.lockfile) → v1 gradle snapshot. A lockfile lists the resolved coordinates of
// every locked configuration (`group:artifact:version=conf1,conf2`) but no edges, so every coordinate is a direct
// dependency of the configurations it is locked in: one root per configuration of the module, context = the
// configuration name. The CI client of a later issue reads the real graph from Gradle itself.
import type { Snapshot, SnapshotNode, SnapshotRoot } from '../../shared/types';

export interface GradleLockOptions {
  project: string;
  /** Gradle project path of the module the lockfile belongs to. Default ":" (the root project). */
  module?: string;
  /** Path of the lockfile, as the snapshot should name it. Default "gradle.lockfile". */
  manifest?: string;
}

const LINE = /^([^:\s=]+):([^:\s=]+):([^=\s]+)=(.*)$/;

export function snapshotFromGradleLock(text: string, opts: GradleLockOptions): Snapshot {
  const nodes = new Map<string, SnapshotNode>();
  const byConfiguration = new Map<string, Set<string>>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('empty=')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`gradle.lockfile: unreadable line "${line}"`);
    const [, group, artifact, version, confs] = m;
    const name = `${group}:${artifact}`;
    const id = `${name}@${version}`;
    nodes.set(id, { id, name, version, relationship: 'direct', dependencies: [] });
    for (const conf of confs
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean)) {
      let set = byConfiguration.get(conf);
      if (!set) byConfiguration.set(conf, (set = new Set()));
      set.add(id);
    }
  }
  const manifest = opts.manifest ?? 'gradle.lockfile';
  const roots: SnapshotRoot[] = [...byConfiguration.keys()].sort().map((context) => ({
    module: opts.module ?? ':',
    manifest,
    context,
    dependencies: [...byConfiguration.get(context)!].sort(),
  }));
  return {
    schemaVersion: 1,
    project: opts.project,
    ecosystem: 'gradle',
    manifests: [manifest],
    roots,
    nodes: [...nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
}
