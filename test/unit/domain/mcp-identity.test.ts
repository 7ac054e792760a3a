// The identity of an MCP server (src/domain/mcp/identity.ts): package launches of every launcher with
// the options that take a value, pins and their absence, Docker's image normalisation, remote URLs, the command hash;
// and the property the inventory relies on: a configuration, its redacted and home-normalised form (what the client
// uploads) and that form redacted again (what the service stores) have one identity.
import crypto from 'node:crypto';
import fc from 'fast-check';
import {
  executableName,
  identity,
  launchedPackage,
  parseImage,
  parseNpmSpec,
  parsePypiSpec,
  type McpIdentity,
  type ServerForIdentity,
} from '../../../src/domain/mcp/identity';
import { redactServer, REDACTED } from '../../../src/shared/mcp/redact';

const HEX64 = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const GHP = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

type Row = [command: string, args: string[], expected: Omit<McpIdentity, 'kind'> & { kind?: McpIdentity['kind'] }];
const id = (command: string, args: string[]) => identity({ command, args });

describe('npm launches', () => {
  const table: Row[] = [
    [
      'npx',
      ['-y', '@modelcontextprotocol/server-filesystem', '/home/dev/projects'],
      { identity: 'pkg:npm/%40modelcontextprotocol/server-filesystem', version: null, pinned: false },
    ],
    ['npx', ['@playwright/mcp@latest'], { identity: 'pkg:npm/%40playwright/mcp', version: 'latest', pinned: false }],
    ['npx', ['@playwright/mcp@0.0.29'], { identity: 'pkg:npm/%40playwright/mcp', version: '0.0.29', pinned: true }],
    [
      'npx',
      ['--yes', 'mcp-remote@0.1.18', 'https://mcp.example.com/sse'],
      { identity: 'pkg:npm/mcp-remote', version: '0.1.18', pinned: true },
    ],
    [
      'npx',
      ['-y', '--', 'chrome-devtools-mcp@^0.6.0'],
      { identity: 'pkg:npm/chrome-devtools-mcp', version: '^0.6.0', pinned: false },
    ],
    ['npx', ['mcp-server@~1.2.0'], { identity: 'pkg:npm/mcp-server', version: '~1.2.0', pinned: false }],
    ['npx', ['mcp-server@1.2'], { identity: 'pkg:npm/mcp-server', version: '1.2', pinned: false }],
    ['npx', ['mcp-server@1.x'], { identity: 'pkg:npm/mcp-server', version: '1.x', pinned: false }],
    ['npx', ['mcp-server@>=1.0.0 <2'], { identity: 'pkg:npm/mcp-server', version: '>=1.0.0 <2', pinned: false }],
    ['npx', ['mcp-server@next'], { identity: 'pkg:npm/mcp-server', version: 'next', pinned: false }],
    ['npx', ['mcp-server@v1.2.3'], { identity: 'pkg:npm/mcp-server', version: '1.2.3', pinned: true }],
    ['npx', ['mcp-server@=1.2.3'], { identity: 'pkg:npm/mcp-server', version: '1.2.3', pinned: true }],
    ['npx', ['mcp-server@1.2.3-beta.1'], { identity: 'pkg:npm/mcp-server', version: '1.2.3-beta.1', pinned: true }],
    ['npx', ['mcp-server@1.2.3+build.5'], { identity: 'pkg:npm/mcp-server', version: '1.2.3+build.5', pinned: true }],
    ['npx', ['mcp-server@01.2.3'], { identity: 'pkg:npm/mcp-server', version: '01.2.3', pinned: false }],
    ['npx', ['mcp-server@'], { identity: 'pkg:npm/mcp-server', version: null, pinned: false }],
    ['npx', ['@Scope/Mixed-Case'], { identity: 'pkg:npm/%40scope/mixed-case', version: null, pinned: false }],
    [
      'npx',
      ['-p', '@scope/pkg@1.0.0', 'pkg-bin', '--flag'],
      { identity: 'pkg:npm/%40scope/pkg', version: '1.0.0', pinned: true },
    ],
    [
      'npx',
      ['--package=@scope/pkg@2.0.0', '-y', 'bin'],
      { identity: 'pkg:npm/%40scope/pkg', version: '2.0.0', pinned: true },
    ],
    [
      'npx',
      ['-p', 'first@1.0.0', '-p', 'second', 'bin'],
      { identity: 'pkg:npm/first', version: '1.0.0', pinned: true },
    ],
    [
      'npx',
      ['--registry', 'https://npm.example.com', 'private-mcp'],
      { identity: 'pkg:npm/private-mcp', version: null, pinned: false },
    ],
    [
      'npx',
      ['--registry=https://npm.example.com', 'private-mcp'],
      { identity: 'pkg:npm/private-mcp', version: null, pinned: false },
    ],
    ['npx', ['--cache', '/tmp/c', '-y', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['npx', ['-q', '--prefer-offline', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['/usr/local/bin/npx', ['mcp-a@1.0.0'], { identity: 'pkg:npm/mcp-a', version: '1.0.0', pinned: true }],
    [
      'C:\\Program Files\\nodejs\\npx.cmd',
      ['-y', 'mcp-a'],
      { identity: 'pkg:npm/mcp-a', version: null, pinned: false },
    ],
    ['NPX.EXE', ['mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    [
      'cmd',
      ['/c', 'npx', '-y', '@scope/pkg@3.1.4'],
      { identity: 'pkg:npm/%40scope/pkg', version: '3.1.4', pinned: true },
    ],
    ['cmd.exe', ['/s', '/c', 'npx', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['bunx', ['mcp-a@1.0.0'], { identity: 'pkg:npm/mcp-a', version: '1.0.0', pinned: true }],
    ['bunx', ['--bun', '-p', 'mcp-a@2.0.0', 'bin'], { identity: 'pkg:npm/mcp-a', version: '2.0.0', pinned: true }],
    ['bun', ['x', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['pnpx', ['mcp-a@latest'], { identity: 'pkg:npm/mcp-a', version: 'latest', pinned: false }],
    ['pnpm', ['dlx', 'mcp-a@1.0.0'], { identity: 'pkg:npm/mcp-a', version: '1.0.0', pinned: true }],
    [
      'pnpm',
      ['--silent', 'dlx', '--package', 'mcp-a@1.0.0', 'bin'],
      { identity: 'pkg:npm/mcp-a', version: '1.0.0', pinned: true },
    ],
    ['pnpm', ['--dir', '/work', 'dlx', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    [
      'yarn',
      ['dlx', '-p', '@scope/pkg@1.0.0', 'bin'],
      { identity: 'pkg:npm/%40scope/pkg', version: '1.0.0', pinned: true },
    ],
    ['yarn', ['dlx', '-q', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['npm', ['exec', '--', 'mcp-a@1.0.0'], { identity: 'pkg:npm/mcp-a', version: '1.0.0', pinned: true }],
    ['npm', ['x', '-y', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
    ['npm', ['--prefix', '/work', 'exec', 'mcp-a'], { identity: 'pkg:npm/mcp-a', version: null, pinned: false }],
  ];
  test.each(table)('%s %j', (command, args, expected) => {
    expect(id(command, args)).toEqual({ kind: 'npm', ...expected });
  });
});

describe('PyPI launches', () => {
  const table: Row[] = [
    ['uvx', ['mcp-server-fetch'], { identity: 'pkg:pypi/mcp-server-fetch', version: null, pinned: false }],
    ['uvx', ['mcp_server.Fetch'], { identity: 'pkg:pypi/mcp-server-fetch', version: null, pinned: false }],
    [
      'uvx',
      ['mcp-server-fetch@2025.4.7'],
      { identity: 'pkg:pypi/mcp-server-fetch', version: '2025.4.7', pinned: true },
    ],
    ['uvx', ['mcp-server-fetch@latest'], { identity: 'pkg:pypi/mcp-server-fetch', version: 'latest', pinned: false }],
    [
      'uvx',
      ['mcp-server-fetch==2025.4.7'],
      { identity: 'pkg:pypi/mcp-server-fetch', version: '2025.4.7', pinned: true },
    ],
    [
      'uvx',
      ['--from', 'mcp-server-git==0.6.2', 'mcp-server-git', '--repository', '/work'],
      { identity: 'pkg:pypi/mcp-server-git', version: '0.6.2', pinned: true },
    ],
    [
      'uvx',
      ['--from=mcp-server-git===0.6.2', 'mcp-server-git'],
      { identity: 'pkg:pypi/mcp-server-git', version: '0.6.2', pinned: true },
    ],
    [
      'uvx',
      ['--from', 'mcp-server-git>=0.6', 'mcp-server-git'],
      { identity: 'pkg:pypi/mcp-server-git', version: '>=0.6', pinned: false },
    ],
    [
      'uvx',
      ['--from', 'mcp-server-git~=0.6.0', 'mcp-server-git'],
      { identity: 'pkg:pypi/mcp-server-git', version: '~=0.6.0', pinned: false },
    ],
    [
      'uvx',
      ['--from', 'mcp-server-git==0.6.*', 'mcp-server-git'],
      { identity: 'pkg:pypi/mcp-server-git', version: '==0.6.*', pinned: false },
    ],
    [
      'uvx',
      ['--from', 'mcp-server-git>=0.6,<0.7', 'mcp-server-git'],
      { identity: 'pkg:pypi/mcp-server-git', version: '>=0.6,<0.7', pinned: false },
    ],
    [
      'uvx',
      ['--from', 'awslabs.aws-documentation-mcp-server[cli] == 1.1.2 ; python_version >= "3.10"', 'x'],
      { identity: 'pkg:pypi/awslabs-aws-documentation-mcp-server', version: '1.1.2', pinned: true },
    ],
    [
      'uvx',
      ['--python', '3.12', 'mcp-server-time'],
      { identity: 'pkg:pypi/mcp-server-time', version: null, pinned: false },
    ],
    [
      'uvx',
      ['-p', '3.12', '--with', 'requests', 'mcp-server-time'],
      { identity: 'pkg:pypi/mcp-server-time', version: null, pinned: false },
    ],
    [
      'uvx',
      ['-q', '--isolated', '--index-url', 'https://pypi.example.com/simple', 'private-mcp'],
      { identity: 'pkg:pypi/private-mcp', version: null, pinned: false },
    ],
    [
      'uv',
      ['tool', 'run', 'mcp-server-time==1.0.0'],
      { identity: 'pkg:pypi/mcp-server-time', version: '1.0.0', pinned: true },
    ],
    [
      'uv',
      ['--directory', '/work', 'tool', 'run', '--from', 'mcp-x', 'x'],
      { identity: 'pkg:pypi/mcp-x', version: null, pinned: false },
    ],
    ['pipx', ['run', 'pycowsay'], { identity: 'pkg:pypi/pycowsay', version: null, pinned: false }],
    [
      'pipx',
      ['run', '--spec', 'Black[d]==24.3.0', 'black'],
      { identity: 'pkg:pypi/black', version: '24.3.0', pinned: true },
    ],
    [
      'pipx',
      ['run', '--python', '3.11', '--spec=mcp-x>=1', 'mcp-x'],
      { identity: 'pkg:pypi/mcp-x', version: '>=1', pinned: false },
    ],
  ];
  test.each(table)('%s %j', (command, args, expected) => {
    expect(id(command, args)).toEqual({ kind: 'pypi', ...expected });
  });
});

describe('OCI images (docker run)', () => {
  const table: Row[] = [
    [
      'docker',
      ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
      { identity: 'pkg:oci/ghcr.io/github/github-mcp-server', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', '-i', '--rm', 'mcp/fetch'],
      { identity: 'pkg:oci/docker.io/mcp/fetch', version: null, pinned: false },
    ],
    ['docker', ['run', 'nginx'], { identity: 'pkg:oci/docker.io/library/nginx', version: null, pinned: false }],
    [
      'docker',
      ['run', 'NGINX:Latest'],
      { identity: 'pkg:oci/docker.io/library/nginx', version: 'Latest', pinned: false },
    ],
    ['docker', ['run', 'nginx:1.27'], { identity: 'pkg:oci/docker.io/library/nginx', version: '1.27', pinned: false }],
    [
      'docker',
      ['run', `nginx@sha256:${HEX64}`],
      { identity: 'pkg:oci/docker.io/library/nginx', version: `sha256:${HEX64}`, pinned: true },
    ],
    [
      'docker',
      ['run', `nginx:1.27@sha256:${HEX64.toUpperCase()}`],
      { identity: 'pkg:oci/docker.io/library/nginx', version: `sha256:${HEX64}`, pinned: true },
    ],
    [
      'docker',
      ['run', 'index.docker.io/library/nginx'],
      { identity: 'pkg:oci/docker.io/library/nginx', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', 'docker.io/nginx'],
      { identity: 'pkg:oci/docker.io/library/nginx', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', 'localhost:5000/team/mcp:dev'],
      { identity: 'pkg:oci/localhost:5000/team/mcp', version: 'dev', pinned: false },
    ],
    ['docker', ['run', 'localhost/mcp'], { identity: 'pkg:oci/localhost/mcp', version: null, pinned: false }],
    [
      'docker',
      ['run', 'Registry.Example.com/Team/MCP'],
      { identity: 'pkg:oci/registry.example.com/team/mcp', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', '--name', 'mcp', '-v', '/a:/b', '-p', '8080:80', '-it', 'img:1.0', '--flag'],
      { identity: 'pkg:oci/docker.io/library/img', version: '1.0', pinned: false },
    ],
    [
      'docker',
      ['run', '-eFOO=bar', '-p8080:80', '--env=A=b', '--rm', 'img'],
      { identity: 'pkg:oci/docker.io/library/img', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', '-e', `GITHUB_TOKEN=${GHP}`, '--mount', 'type=bind,src=/a,dst=/b', 'img'],
      { identity: 'pkg:oci/docker.io/library/img', version: null, pinned: false },
    ],
    [
      'docker',
      ['run', '--init', '--read-only', '--network', 'host', '--entrypoint', '/bin/sh', 'img', '-c', 'x'],
      { identity: 'pkg:oci/docker.io/library/img', version: null, pinned: false },
    ],
    [
      'docker',
      ['--context', 'remote', 'run', 'img'],
      { identity: 'pkg:oci/docker.io/library/img', version: null, pinned: false },
    ],
    [
      'docker',
      ['container', 'run', '-i', 'img'],
      { identity: 'pkg:oci/docker.io/library/img', version: null, pinned: false },
    ],
    [
      'podman',
      ['run', '-i', 'quay.io/org/mcp:v2'],
      { identity: 'pkg:oci/quay.io/org/mcp', version: 'v2', pinned: false },
    ],
  ];
  test.each(table)('%s %j', (command, args, expected) => {
    expect(id(command, args)).toEqual({ kind: 'oci', ...expected });
  });
});

describe('remote servers', () => {
  const table: Array<[server: ServerForIdentity, expected: string]> = [
    [{ transport: 'http', url: 'https://mcp.example.com/mcp' }, 'https://mcp.example.com/mcp'],
    [
      { transport: 'http', url: 'https://user:pw@MCP.Example.com:443/a/../mcp?key=abc#frag' },
      'https://mcp.example.com/mcp',
    ],
    [{ transport: 'sse', url: 'http://localhost:3000/sse?token=x' }, 'http://localhost:3000/sse'],
    [{ url: 'https://mcp.example.com' }, 'https://mcp.example.com/'],
    [{ transport: 'HTTP', url: ' https://mcp.example.com/mcp/ ' }, 'https://mcp.example.com/mcp/'],
    [{ transport: 'http', url: 'https://mcp.example.com/mcp?api_key=${KEY}' }, 'https://mcp.example.com/mcp'],
    [
      { transport: 'http', url: 'https://actions.zapier.com/mcp/sk-ak-x8RzT4vWq1NmYbC3dE6fGh/sse' },
      `https://actions.zapier.com/mcp/${REDACTED}/sse`,
    ],
    [{ transport: 'http', url: 'not a url' }, 'not a url'],
    // WHATWG lowercases a host, a reference too.
    [{ transport: 'http', url: 'https://${HOST}/mcp' }, 'https://${host}/mcp'],
    [{ transport: 'http' }, ''],
  ];
  test.each(table)('%j → %s', (server, expected) => {
    expect(identity(server)).toEqual({ identity: expected, version: null, pinned: false, kind: 'remote' });
  });
});

describe('other commands: cmd: + SHA-256 of the redacted command line', () => {
  const hash = (v: string[]) => `cmd:${crypto.createHash('sha256').update(JSON.stringify(v)).digest('hex')}`;

  test('the canonical JSON of [command, ...args]', () => {
    expect(id('node', ['server.js', '--port', '3000'])).toEqual({
      identity: hash(['node', 'server.js', '--port', '3000']),
      version: null,
      pinned: false,
      kind: 'command',
    });
    expect(identity({ command: 'python' })).toEqual({
      identity: hash(['python']),
      version: null,
      pinned: false,
      kind: 'command',
    });
    expect(identity({ command: 'say "hi"', args: ['é', '\u2028'] }).identity).toBe(hash(['say "hi"', 'é', '\u2028']));
  });

  test('after redaction: two tokens, one identity; the token never hashed', () => {
    const a = id('my-mcp', ['--token', 'first-secret']);
    const b = id('my-mcp', ['--token', 'second-secret']);
    expect(a).toEqual(b);
    expect(a.identity).toBe(hash(['my-mcp', '--token', REDACTED]));
  });

  test('a leading home directory written ~: the same server in two homes is one server', () => {
    const a = identity({ command: '/home/alice/bin/mcp', args: ['/home/alice/data'] }, { home: '/home/alice' });
    const b = identity({ command: '/Users/bob/bin/mcp', args: ['/Users/bob/data'] }, { home: '/Users/bob' });
    expect(a).toEqual(b);
    expect(a.identity).toBe(hash(['~/bin/mcp', '~/data']));
    // Only leading: elsewhere the path is as written.
    expect(identity({ command: 'mcp', args: ['--root=/home/alice'] }, { home: '/home/alice' }).identity).toBe(
      hash(['mcp', '--root=/home/alice']),
    );
  });

  test('different command lines, different identities', () => {
    expect(id('node', ['a.js']).identity).not.toBe(id('node', ['b.js']).identity);
    expect(id('node', ['a.js', 'b']).identity).not.toBe(id('node', ['a.js b']).identity);
  });

  const notPackages: Array<[string, string[]]> = [
    ['npx', []],
    ['npx', ['-y']],
    ['npx', ['./local-server']],
    ['npx', ['/abs/server']],
    ['npx', ['github:org/repo']],
    ['npx', ['git+https://github.com/org/repo.git']],
    ['npx', ['https://example.com/pkg.tgz']],
    ['npx', ['file:../pkg']],
    ['npx', ['-c', 'mcp-a --x']],
    ['uvx', ['--from', 'git+https://github.com/org/repo', 'mcp-x']],
    ['uvx', ['./local']],
    ['pipx', ['install', 'x']],
    ['docker', ['exec', '-i', 'container', 'mcp']],
    ['docker', ['run']],
    ['docker', ['run', '-i', '--rm']],
    ['docker', ['run', 'Bad Image']],
    ['docker', ['run', 'img@sha256:short']],
    ['pnpm', ['install']],
    ['yarn', ['start']],
    ['npm', ['run', 'mcp']],
    ['bun', ['run', 'x.ts']],
    ['uv', ['run', 'server.py']],
    ['cmd', ['/c']],
    ['python', ['-m', 'mcp_server']],
    ['node', ['/opt/npx', 'x']],
  ];
  test.each(notPackages)('%s %j', (command, args) => {
    expect(id(command, args).kind).toBe('command');
  });

  test('a transport of stdio with a url is a command', () => {
    expect(identity({ transport: 'stdio', command: 'npx', args: ['mcp-a'], url: 'https://x' }).kind).toBe('npm');
    expect(identity({ transport: 'stdio', url: 'https://x' }).kind).toBe('command');
  });
});

describe('the parsers', () => {
  test('executable names', () => {
    expect(
      ['npx', '/usr/bin/npx', 'C:\\nodejs\\npx.cmd', 'npx.EXE', 'NPX', 'npx.ps1', 'npx.bat'].map(executableName),
    ).toEqual(Array(7).fill('npx'));
  });

  test('npm specs', () => {
    expect(parseNpmSpec('@a/b@1.0.0')).toEqual({ name: 'b', scope: 'a', version: '1.0.0', pinned: true });
    expect(parseNpmSpec('b')).toEqual({ name: 'b', scope: undefined, version: null, pinned: false });
    expect(parseNpmSpec('npm:b@1.0.0')).toBeNull();
    expect(parseNpmSpec('@a')).toBeNull();
    expect(parseNpmSpec('a/b')).toBeNull();
    expect(parseNpmSpec('[REDACTED]')).toBeNull();
  });

  test('PyPI specs', () => {
    expect(parsePypiSpec('A.B_c', false)).toEqual({ name: 'a-b-c', version: null, pinned: false });
    expect(parsePypiSpec('x@1.0', false)).toEqual({ name: 'x', version: null, pinned: false });
    expect(parsePypiSpec('x @ https://example.com/x.whl', true)).toEqual({ name: 'x', version: null, pinned: false });
    expect(parsePypiSpec('x (==1.0)', false)).toEqual({ name: 'x', version: '1.0', pinned: true });
    expect(parsePypiSpec('-x', false)).toBeNull();
  });

  test('images', () => {
    expect(parseImage('a/b/c:1')).toEqual({ image: 'docker.io/a/b/c', version: '1', pinned: false });
    expect(parseImage('registry-1.docker.io/a')).toEqual({
      image: 'docker.io/library/a',
      version: null,
      pinned: false,
    });
    expect(parseImage('a:')).toBeNull();
    expect(parseImage('a//b')).toBeNull();
    expect(parseImage('-a')).toBeNull();
  });

  test('the package a command line launches, as written', () => {
    expect(launchedPackage('npx', ['-y', 'a@1'])).toEqual({ ecosystem: 'npm', spec: 'a@1', uvxAt: false });
    expect(launchedPackage('cmd', ['/c', 'cmd', '/c', 'cmd', '/c', 'cmd', '/c', 'npx', 'a'])).toBeNull();
  });
});

// --- safe to apply twice ----------------------------------------------------------------------------------------

describe('safe to apply twice: a server, its uploaded form and its stored form have one identity', () => {
  const secret = fc.constantFrom(
    GHP,
    'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
    'hunter2',
    'x8RzT4vWq1NmYbC3dE6fGh',
    'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
  );
  const pkgName = fc.constantFrom(
    'mcp-a',
    '@scope/mcp-b',
    'Mixed_Case.Name',
    'mcp-server-kubernetes-readonly',
    '@modelcontextprotocol/server-filesystem',
  );
  const version = fc.constantFrom('', '@1.2.3', '@latest', '@^1.0.0', '@v2.0.0', '@1.2');
  const pyVersion = fc.constantFrom('', '==1.0.0', '>=1', '@2025.4.7', '@latest', '[x]==2.0');
  const image = fc.constantFrom(
    'nginx',
    'mcp/fetch:1.0',
    'ghcr.io/github/github-mcp-server',
    `img@sha256:${HEX64}`,
    'localhost:5000/a/b:dev',
  );
  const extra = fc.array(
    fc.oneof(
      secret.map((s) => `--token=${s}`),
      secret.map((s) => `API_KEY=${s}`),
      fc.constantFrom('--verbose', '/home/dev/data', '~/x', 'https://u:p@h.example.com/?k=v', '--port', '3000'),
    ),
    { maxLength: 4 },
  );
  const home = fc.constantFrom(undefined, '/home/dev');
  const server: fc.Arbitrary<ServerForIdentity> = fc.oneof(
    fc
      .tuple(
        fc.constantFrom('npx', 'bunx', 'pnpx', '/usr/bin/npx'),
        fc.constantFrom([], ['-y'], ['--yes', '--registry', 'https://r.example.com']),
        pkgName,
        version,
        extra,
      )
      .map(([command, opts, name, v, rest]) => ({ command, args: [...opts, `${name}${v}`, ...rest] })),
    fc
      .tuple(fc.constantFrom(['dlx'], ['dlx', '-p']), pkgName, version, extra)
      .map(([sub, name, v, rest]) => ({ command: 'pnpm', args: [...sub, `${name}${v}`, ...rest] })),
    fc.tuple(fc.constantFrom('uvx', 'pipx'), pkgName, pyVersion, extra).map(([command, name, v, rest]) => ({
      command,
      args: [...(command === 'pipx' ? ['run'] : []), `${name.replace(/^@[^/]+\//, '')}${v}`, ...rest],
    })),
    fc
      .tuple(fc.constantFrom([], ['-i', '--rm'], ['-e', 'A=b', '--name', 'x']), secret, image, extra)
      .map(([opts, s, img, rest]) => ({
        command: 'docker',
        args: ['run', ...opts, '-e', `GITHUB_TOKEN=${s}`, img, ...rest],
      })),
    fc
      .tuple(
        fc.constantFrom('http', 'sse', undefined),
        secret,
        fc.constantFrom('https://mcp.example.com/mcp', 'http://localhost:3000/sse', 'https://h.example.com'),
      )
      .map(([transport, s, u]) => ({
        transport,
        url: `${u.replace('://', `://me:${s}@`)}?key=${s}#x`,
      })),
    fc
      .tuple(fc.constantFrom('node', '/home/dev/bin/mcp', 'python3', 'cmd'), extra)
      .map(([command, args]) => ({ command, args })),
  );

  test('identity(server) = identity(redacted with the home) = identity(that, redacted again without it)', () => {
    fc.assert(
      fc.property(server, home, (s, h) => {
        const direct = identity(s, { home: h });
        const uploaded = { ...redactServer(s, { home: h }).server, transport: s.transport };
        const stored = { ...redactServer(uploaded).server, transport: s.transport };
        expect(identity(uploaded)).toEqual(direct);
        expect(identity(stored)).toEqual(direct);
        expect(identity(uploaded, { home: h })).toEqual(direct);
      }),
      { numRuns: 2000 },
    );
  });

  test('no secret in an identity or a version', () => {
    fc.assert(
      fc.property(server, (s) => {
        const text = JSON.stringify(identity(s, { home: '/home/dev' }));
        for (const v of [GHP, 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z', 'x8RzT4vWq1NmYbC3dE6fGh', 'me:'])
          expect(text).not.toContain(v);
      }),
      { numRuns: 1000 },
    );
  });
});
