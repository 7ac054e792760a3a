// pip requirements files named anything: the Django layout (requirements/base.txt, requirements/local.txt with
// `-r base.txt`, ...) is found by a directory walk, a .txt named on the command line is read when its content is
// requirements, and prose is refused naming what the client reads. Discovery with the client's real producers, then
// `scanner snapshot .` on the same tree, whose snapshot the server's own validation accepts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discover } from '../../../src/client/discover';
import { main } from '../../../src/client/main';
import { makeSnapshots } from '../../../src/client/snapshot/make';
import { PRODUCERS } from '../../../src/client/producers';
import { requirementsProducer } from '../../../src/client/producers/requirements-txt';
import { validateSnapshot } from '../../../src/domain/snapshot/validate';
import type { Snapshot } from '../../../src/shared/types';

/** The layout cookiecutter-django generates, pins and comments as it writes them. */
const BASE = `# Shared by every environment; compiled from base.in.
-c constraints.txt

python-slugify==8.0.4  # https://github.com/un33k/python-slugify
Pillow==10.4.0  # https://github.com/python-pillow/Pillow
argon2-cffi==23.1.0  # https://github.com/hynek/argon2_cffi
whitenoise==6.7.0  # https://github.com/evansd/whitenoise
redis==5.0.8  # https://github.com/redis/redis-py
hiredis==3.0.0  # https://github.com/redis/hiredis-py

# Django
# ------------------------------------------------------------------------------
django==5.0.9  # pyup: < 5.1  # https://www.djangoproject.com/
django-environ==0.11.2  # https://github.com/joke2k/django-environ
django-allauth[mfa]==64.2.1  # https://github.com/pennersr/django-allauth
django-crispy-forms==2.3  # https://github.com/django-crispy-forms/django-crispy-forms
`;
const LOCAL = `-r base.txt

Werkzeug[watchdog]==3.0.4 # https://github.com/pallets/werkzeug
ipdb==0.13.13  # https://github.com/gotcha/ipdb
psycopg[c]==3.2.2  # https://github.com/psycopg/psycopg
watchfiles==0.24.0  # https://github.com/samuelcolvin/watchfiles

# Testing
# ------------------------------------------------------------------------------
pytest==8.3.3  # https://github.com/pytest-dev/pytest
pytest-sugar==1.0.0  # https://github.com/Frozenball/pytest-sugar
django-debug-toolbar==4.4.6 ; python_version >= "3.8"
`;
const PRODUCTION = `# PRECAUTION: avoid production dependencies that aren't in development

-r base.txt

gunicorn==23.0.0  # https://github.com/benoitc/gunicorn
psycopg[c]==3.2.2  # https://github.com/psycopg/psycopg
sentry-sdk==2.14.0 \\
    --hash=sha256:4c5d8e5b2e58b6e8d6c9a4bcc8f2d2e3f1e0a7b9c8d7e6f5a4b3c2d1e0f9a8b7c6
django-anymail[mailgun]==12.0  # https://github.com/anymail/django-anymail
`;
const README = `Requirements
============

These files pin what each environment installs. Install the local ones with
pip install -r requirements/local.txt; production images use production.txt.
`;

let dir: string;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'discover-requirements-')));
  write('manage.py', '#!/usr/bin/env python\nimport os\n');
  write('config/settings/base.py', 'DEBUG = False\n');
  write('requirements/base.txt', BASE);
  write('requirements/local.txt', LOCAL);
  write('requirements/production.txt', PRODUCTION);
  write('requirements/envs/ci.txt', '-r ../local.txt\ncoverage==7.6.1  # https://github.com/nedbat/coveragepy\n');
  write('requirements/constraints.txt', 'urllib3==2.2.3\n');
  write('requirements/README.txt', README);
  write('requirements/base.in', 'django<5.1\n');
  // Heroku reads a requirements.txt at the root; cookiecutter-django's points at production.txt.
  write('requirements.txt', '# This file is expected by Heroku.\n\n-r requirements/production.txt\n');
  // Not read by a walk: a .txt of pins outside requirements/, one two levels down, and copies inside installed trees.
  write('docs/requirements-notes/pins.txt', 'sphinx==7.4.7\n');
  write('requirements/archive/2023/old.txt', 'django==3.2.0\n');
  write('.venv/lib/python3.12/site-packages/x/requirements/base.txt', 'six==1.16.0\n');
  write('env/pyvenv.cfg', 'home = /usr/bin\n');
  write('env/src/pkg/requirements/dev.txt', 'six==1.16.0\n');
  write('node_modules/x/requirements/base.txt', 'six==1.16.0\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const relatives = (inputs: string[], cwd = dir) => discover(inputs, PRODUCERS, cwd).lockfiles.map((l) => l.relative);

describe('a directory walk', () => {
  test('finds every .txt of requirements in requirements/ and one level below, beside requirements.txt', () => {
    const d = discover([dir], PRODUCERS);
    expect(d.root).toBe(dir);
    expect(d.lockfiles.map((l) => l.relative)).toEqual([
      'requirements/base.txt',
      'requirements/envs/ci.txt',
      'requirements/local.txt',
      'requirements/production.txt',
      'requirements.txt',
    ]);
    for (const l of d.lockfiles) expect(l.producer).toBe(requirementsProducer);
  });

  test('skips in requirements/ what is no requirements file: prose, a constraints file, an empty file', () => {
    write('requirements/empty.txt', '');
    write('requirements/notes.txt', '# comments only, no pin\n');
    const found = relatives(['requirements']);
    expect(found).toEqual(['base.txt', 'envs/ci.txt', 'local.txt', 'production.txt']);
    expect(found).not.toContain('README.txt');
    expect(found).not.toContain('constraints.txt');
  });

  test('a requirements/ folder alone is found when it is the folder asked for', () => {
    expect(relatives(['.'], path.join(dir, 'requirements'))).toEqual([
      'base.txt',
      'envs/ci.txt',
      'local.txt',
      'production.txt',
    ]);
  });

  test('never reads a .txt by content elsewhere: a folder of pins not named requirements is not searched', () => {
    expect(relatives(['docs'])).toEqual([]);
  });
});

describe('a file named on the command line', () => {
  test('a .txt of pins is read as pip requirements, whatever its name and folder', () => {
    const d = discover(['requirements/base.txt', 'docs/requirements-notes/pins.txt'], PRODUCERS, dir);
    expect(d.root).toBe(dir);
    expect(d.lockfiles.map((l) => [l.relative, l.producer])).toEqual([
      ['requirements/base.txt', requirementsProducer],
      ['docs/requirements-notes/pins.txt', requirementsProducer],
    ]);
  });

  test('named twice (once through its folder) it is read once', () => {
    expect(relatives(['requirements', 'requirements/local.txt'])).toEqual([
      'base.txt',
      'envs/ci.txt',
      'local.txt',
      'production.txt',
    ]);
  });

  test.each([
    ['prose', 'requirements/README.txt'],
    ['a Python file', 'manage.py'],
    ['pip-tools input without a .txt name', 'requirements/base.in'],
  ])('%s is refused naming what the client reads (exit 2)', (_what, file) => {
    expect(() => discover([file], PRODUCERS, dir)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: `${path.join(dir, file)}: not a lockfile this client reads (${PRODUCERS.map((p) => p.format).join(
          ', ',
        )}), nor a .txt of pip requirements (name==version lines)`,
      }),
    );
  });
});

describe('scanner snapshot . on the Django layout', () => {
  async function snapshotOf(args: string[]): Promise<{ code: number; snapshots: Snapshot[]; err: string }> {
    let out = '';
    let err = '';
    const code = await main(['snapshot', ...args], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env: {},
      cwd: dir,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    });
    const snapshots = out
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Snapshot);
    for (const s of snapshots) {
      const body = JSON.stringify(s);
      validateSnapshot(JSON.parse(body), Buffer.byteLength(body));
    }
    return { code, snapshots, err };
  }

  const BASE_IDS = [
    'argon2-cffi@23.1.0',
    'django-allauth@64.2.1',
    'django-crispy-forms@2.3',
    'django-environ@0.11.2',
    'django@5.0.9',
    'hiredis@3.0.0',
    'pillow@10.4.0',
    'python-slugify@8.0.4',
    'redis@5.0.8',
    'whitenoise@6.7.0',
  ];
  const LOCAL_IDS = [
    'django-debug-toolbar@4.4.6',
    'ipdb@0.13.13',
    'psycopg@3.2.2',
    'pytest-sugar@1.0.0',
    'pytest@8.3.3',
    'watchfiles@0.24.0',
    'werkzeug@3.0.4',
  ];
  const PRODUCTION_IDS = ['django-anymail@12.0', 'gunicorn@23.0.0', 'psycopg@3.2.2', 'sentry-sdk@2.14.0'];
  const sorted = (ids: string[]) => [...new Set(ids)].sort();

  test('one python snapshot: a root per file with what pip installs from it, each package once', async () => {
    const { code, snapshots, err } = await snapshotOf(['.']);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(snapshots).toHaveLength(1);
    const [s] = snapshots;
    expect(s).toMatchObject({ schemaVersion: 1, ecosystem: 'python' });
    // Every pin once, though base.txt's are reached from four files and psycopg is pinned in two.
    const ids = s.nodes.map((n) => n.id);
    expect(ids).toEqual(sorted([...BASE_IDS, ...LOCAL_IDS, ...PRODUCTION_IDS, 'coverage@7.6.1']));
    for (const n of s.nodes) expect(n).toMatchObject({ relationship: 'direct', dependencies: [] });
    // The constraints file pins urllib3 but installs nothing; the skipped copies (venv, node_modules) pin six.
    expect(ids).not.toContain('urllib3@2.2.3');
    expect(ids).not.toContain('six@1.16.0');
    expect(s.roots.map((r) => [r.module, r.context, r.dependencies])).toEqual([
      ['requirements', 'base.txt', sorted(BASE_IDS)],
      ['requirements/envs', 'ci.txt', sorted([...BASE_IDS, ...LOCAL_IDS, 'coverage@7.6.1'])],
      ['requirements', 'local.txt', sorted([...BASE_IDS, ...LOCAL_IDS])],
      ['requirements', 'production.txt', sorted([...BASE_IDS, ...PRODUCTION_IDS])],
      ['.', 'requirements.txt', sorted([...BASE_IDS, ...PRODUCTION_IDS])],
    ]);
    expect(s.manifests).toEqual([
      'requirements/base.txt',
      'requirements/envs/ci.txt',
      'requirements/local.txt',
      'requirements/production.txt',
      'requirements.txt',
    ]);
  });

  test('a file named on the command line: its includes are read relative to it', async () => {
    const { code, snapshots } = await snapshotOf(['requirements/local.txt']);
    expect(code).toBe(0);
    const [s] = snapshots;
    expect(s.nodes.map((n) => n.id)).toEqual(sorted([...BASE_IDS, ...LOCAL_IDS]));
    expect(s.roots).toEqual([
      { module: '.', manifest: 'local.txt', context: 'local.txt', dependencies: sorted([...BASE_IDS, ...LOCAL_IDS]) },
    ]);
    expect(s.manifests).toEqual(['local.txt', 'base.txt']);
  });

  test('a prose .txt named on the command line is refused (exit 2), saying what the client reads', async () => {
    const { code, snapshots, err } = await snapshotOf(['requirements/README.txt']);
    expect({ code, snapshots }).toEqual({ code: 2, snapshots: [] });
    expect(err).toMatch(/README\.txt: not a lockfile this client reads \(.*requirements\.txt.*\), nor a \.txt of pip/);
  });

  test('each package is located at its pin, in the file that pins it (base.txt for what local.txt includes)', () => {
    const [made] = makeSnapshots({ paths: ['.'], metadataFlags: {}, env: {}, cwd: dir });
    expect(made.lockfiles).toEqual([
      'requirements/base.txt',
      'requirements/envs/ci.txt',
      'requirements/local.txt',
      'requirements/production.txt',
      'requirements.txt',
    ]);
    expect(made.warnings).toEqual([]);
    const lineOf = (file: string, text: string, pin: string) => ({
      file,
      line: text.split('\n').findIndex((l) => l.startsWith(pin)) + 1,
    });
    expect(made.locations['django@5.0.9']).toEqual(lineOf('requirements/base.txt', BASE, 'django=='));
    expect(made.locations['werkzeug@3.0.4']).toEqual(lineOf('requirements/local.txt', LOCAL, 'Werkzeug['));
    expect(made.locations['psycopg@3.2.2']).toEqual(lineOf('requirements/local.txt', LOCAL, 'psycopg['));
    expect(made.locations['sentry-sdk@2.14.0']).toEqual(
      lineOf('requirements/production.txt', PRODUCTION, 'sentry-sdk=='),
    );
    expect(made.locations['coverage@7.6.1']).toEqual({ file: 'requirements/envs/ci.txt', line: 2 });
  });
});
