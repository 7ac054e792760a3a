// gradle.lockfile (Gradle's dependency locking, one file per project since Gradle 6.0) → a flat (v1) part. Each line
// `group:artifact:version=conf1,conf2` says which locked configurations resolved that coordinate; the file records
// no edges, so every coordinate is a direct dependency of the configurations it is locked in: one root per
// configuration, context = its name. `empty=` lists configurations that resolved nothing (no root). The real graph
// comes from Gradle itself (the init script of a later change).
//
// Module: the Gradle project path of the lockfile's folder relative to the project root (":" at the root, "a/b" →
// ":a:b"), which is what a build's settings give it unless they rename projects; manifest: its build script.
import { posix } from 'node:path';
import type { SnapshotNode, SnapshotRoot } from '../../shared/types';
import { byCodeUnit, inputError, lockDir, someOf } from './npm-common';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** group:artifact:version=configurations; Gradle writes no spaces, a hand edit may. */
const LINE = /^([^:\s=]+):([^:\s=]+):([^:=\s]+)\s*=\s*(.*)$/;
const CONFIGURATION = /^[A-Za-z0-9_.-]+$/;

export function gradleProjectPath(dir: string): string {
  return dir === '.' || dir === '' ? ':' : `:${dir.split('/').join(':')}`;
}

function buildScript(input: LockfileInput, dir: string): string {
  for (const name of ['build.gradle.kts', 'build.gradle']) {
    const p = posix.join(dir, name);
    if (input.readFile(p) !== undefined) return p;
  }
  return posix.join(dir, 'build.gradle');
}

function produce(input: LockfileInput): ProducedPart {
  const file = input.path;
  const nodes = new Map<string, SnapshotNode>();
  const locations: Record<string, PackageLocation> = {};
  const byConfiguration = new Map<string, Set<string>>();
  const lines = input.text.split('\n');
  const bad: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#') || /^empty\s*=/.test(line)) continue;
    const m = LINE.exec(line);
    const confs = m
      ? m[4]
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean)
      : [];
    if (!m || confs.length === 0 || !confs.every((c) => CONFIGURATION.test(c))) {
      bad.push(`line ${i + 1}`);
      continue;
    }
    const [, group, artifact, version] = m;
    const name = `${group}:${artifact}`;
    const id = `${name}@${version}`;
    if (!nodes.has(id)) {
      nodes.set(id, { id, name, version, relationship: 'direct', dependencies: [] });
      locations[id] = { file, line: i + 1 };
    }
    for (const conf of confs) {
      let set = byConfiguration.get(conf);
      if (!set) byConfiguration.set(conf, (set = new Set()));
      set.add(id);
    }
  }
  // A file with no readable line at all is not a Gradle lockfile; a few odd lines in a real one are reported.
  if (nodes.size === 0 && bad.length > 0)
    throw inputError(file, `not a Gradle lockfile (no "group:artifact:version=configurations" line; ${someOf(bad)})`);
  const dir = lockDir(file);
  const module = gradleProjectPath(dir);
  const manifest = buildScript(input, dir);
  const roots: SnapshotRoot[] = [...byConfiguration.keys()].sort(byCodeUnit).map((context) => ({
    module,
    manifest,
    context,
    dependencies: [...byConfiguration.get(context)!].sort(byCodeUnit),
  }));
  return {
    ecosystem: 'gradle',
    schemaVersion: 1,
    manifests: [file, manifest],
    modules: [{ path: module, manifest, dependencies: [] }],
    roots,
    nodes: [...nodes.values()].sort((a, b) => byCodeUnit(a.id, b.id)),
    locations,
    warnings: bad.length > 0 ? [`unreadable lines skipped: ${someOf(bad)}`] : [],
  };
}

export const gradleLockfileProducer: Producer = {
  format: 'gradle.lockfile',
  matches: (fileName) => fileName === 'gradle.lockfile',
  produce,
};
