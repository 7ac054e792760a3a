// `scanner snapshot` in-process on fixture projects made by the real package managers: discovery, the producer,
// folder listing for workspace globs, assembly; every snapshot it writes passes the server's own validation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../src/client/main';
import { validateSnapshot } from '../../../src/domain/snapshot';
import type { Snapshot } from '../../../src/shared/types';

const FIXTURES = path.resolve(__dirname, '../../fixtures');

async function snapshotOf(
  dir: string,
  extra: string[] = [],
): Promise<{ code: number; snapshots: Snapshot[]; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['snapshot', dir, ...extra], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: {},
    cwd: dir,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
  const snapshots =
    out.trim() === ''
      ? []
      : out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Snapshot);
  for (const s of snapshots) {
    const body = JSON.stringify(s);
    validateSnapshot(JSON.parse(body), Buffer.byteLength(body));
  }
  return { code, snapshots, err };
}

test.each([
  ['npm/workspaces', 2],
  ['pnpm/workspace-v9', 2],
  ['yarn/classic', 2],
  ['yarn/berry', 2],
])('%s: one valid v2 javascript snapshot whose workspaces are modules', async (fixture, version) => {
  const { code, snapshots, err } = await snapshotOf(path.join(FIXTURES, fixture));
  expect({ code, err }).toEqual({ code: 0, err: '' });
  expect(snapshots).toHaveLength(1);
  const [s] = snapshots;
  expect(s).toMatchObject({ schemaVersion: version, ecosystem: 'javascript' });
  // The root and every workspace folder under packages/ (found through the folder listing for yarn classic).
  const workspaces = fs
    .readdirSync(path.join(FIXTURES, fixture, 'packages'))
    .map((d) => `packages/${d}`)
    .sort();
  expect(s.modules!.map((m) => m.path).sort()).toEqual(['.', ...workspaces].sort());
  expect(s.nodes.length).toBeGreaterThan(0);
});

test('--project names it; --output writes it; the npm v1 fixture makes a v1 snapshot', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'snap-')), 'snapshot.json');
  let err = '';
  const code = await main(['snapshot', path.join(FIXTURES, 'npm/v1'), '--project', 'legacy', '--output', out], {
    out: () => undefined,
    err: (t) => void (err += t),
    env: {},
    cwd: FIXTURES,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
  expect(code).toBe(0);
  expect(err).toMatch(/javascript snapshot of package-lock\.json: \d+ packages → /);
  const s = JSON.parse(fs.readFileSync(out, 'utf8'));
  expect(s).toMatchObject({ schemaVersion: 1, project: 'legacy', ecosystem: 'javascript' });
});

test('nothing to scan is exit 2', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-'));
  const { code, err } = await snapshotOf(empty);
  expect(code).toBe(2);
  expect(err).toMatch(/nothing to scan: no lockfile found under/);
});

describe('a Gradle build where Gradle cannot run', () => {
  let dir: string;
  let savedPath: string | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gradle-nogradle-'));
    fs.writeFileSync(path.join(dir, 'settings.gradle'), "include 'app'\n");
    fs.mkdirSync(path.join(dir, 'app'));
    fs.writeFileSync(path.join(dir, 'app', 'build.gradle'), "apply plugin: 'java'\n");
    savedPath = process.env.PATH;
    process.env.PATH = path.join(dir, 'no-such-bin');
  });
  afterEach(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('its gradle.lockfile files are read instead, with a warning saying why', async () => {
    fs.writeFileSync(path.join(dir, 'app', 'gradle.lockfile'), 'org.yaml:snakeyaml:1.30=runtimeClasspath\n');
    const { code, snapshots, err } = await snapshotOf(dir);
    expect(code).toBe(0);
    expect(err).toMatch(
      /settings\.gradle: neither \.\/gradlew nor gradle on PATH.*its gradle\.lockfile files are read instead/,
    );
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({
      schemaVersion: 1,
      ecosystem: 'gradle',
      roots: [{ module: ':app', context: 'runtimeClasspath', dependencies: ['org.yaml:snakeyaml@1.30'] }],
    });
  });

  test('without lockfiles there is nothing else to read: exit 2 saying how to install Gradle', async () => {
    const { code, err } = await snapshotOf(dir);
    expect(code).toBe(2);
    expect(err).toMatch(/neither \.\/gradlew nor gradle on PATH/);
  });
});
