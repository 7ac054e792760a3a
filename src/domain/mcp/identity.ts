// The identity of an MCP server: one function, shared by the CI client and the service, so that the
// same server configured on two machines, in two agents, or uploaded twice is one server of the inventory and one
// entry of the registry. Safe to apply twice: the identity is computed from the redacted server (redact.ts, itself
// idempotent), so a configuration and its redacted, home-normalised form (what the client uploads) have the same
// identity.
//
// - A package launch: `npx`, `bunx`, `pnpx`, `pnpm dlx`, `yarn dlx`, `npm exec`/`npm x`, `bun x` → pkg:npm/<name>
//   (lowercase, scope as %40scope); `uvx`, `uv tool run`, `pipx run` → pkg:pypi/<PEP 503 name>; `docker run`,
//   `docker container run`, `podman run` → pkg:oci/<image> with Docker's normalisation (nginx = docker.io/library/nginx,
//   index.docker.io = docker.io, lowercase; a first component with a dot or a port, or `localhost`, is a registry).
//   The package is the first argument that is not an option (options known to take a value skip it), unless
//   `-p`/`--package`, `uvx --from` or `pipx run --spec` names it. A Windows `cmd /c <launch>` is read through.
//   Pinned: an exact version (npm: an exact semver, `v`/`=` prefix allowed; PyPI: `==X`, `===X`, or uvx's `name@X`) or
//   a digest (`image@sha256:...`). None, a dist-tag, a range or a Docker tag is unpinned; what was written is kept as
//   the version. A spec that is not a registry package (a path, a git or tarball URL, `github:user/repo`) is a command.
// - A remote server (transport http or sse, or a url without a command): the URL in WHATWG serialisation with user
//   info, query and fragment removed (the path kept); a URL that does not parse: its redacted text, trimmed.
// - Any other command: `cmd:` + SHA-256 hex of the canonical JSON (RFC 8785: for an array of strings, JSON.stringify)
//   of [command, ...args] after redaction, a leading home directory written `~`.
//
// Dependency-free (the client bundle imports it); node:crypto is required on first use, as in src/shared/inventory-ids.ts.
import { pypiName } from '../../shared/package-names';
import { redactServer } from '../../shared/mcp/redact';

let crypto: typeof import('node:crypto') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeCrypto = (): typeof import('node:crypto') => (crypto ??= require('node:crypto'));

export type McpIdentityKind = 'npm' | 'pypi' | 'oci' | 'remote' | 'command';

export interface McpIdentity {
  identity: string;
  /** The version, tag, range or digest as written (an exact npm version without its `v`/`=`); null when none. */
  version: string | null;
  pinned: boolean;
  kind: McpIdentityKind;
}

export interface ServerForIdentity {
  transport?: string;
  command?: string;
  args?: readonly unknown[];
  url?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Command lines

interface OptionSpec {
  /** Options whose value names the package (long and short forms). */
  package: ReadonlySet<string>;
  /** Options that take a value (the next argument, unless written `--opt=value` or `-Xvalue`). */
  value: ReadonlySet<string>;
}

const spec = (pkg: string[], value: string[]): OptionSpec => ({ package: new Set(pkg), value: new Set(value) });

// npm exec / npx (npm 7+): https://docs.npmjs.com/cli/commands/npm-exec — `--package`/`-p` names the package;
// `--call`/`-c` and npm's configuration options take a value; `-y`/`--yes`, `--no`, `-q` ... do not.
const NPM_EXEC = spec(
  ['--package', '-p'],
  [
    '--call',
    '-c',
    '--registry',
    '--cache',
    '--userconfig',
    '--globalconfig',
    '--prefix',
    '--workspace',
    '-w',
    '--loglevel',
    '--node-options',
    '--shell',
    '--script-shell',
    '--include',
    '--omit',
    '--location',
    '--before',
    '--tag',
    '--scope',
    '--npm-version',
    '--otp',
  ],
);
// bunx / bun x: https://bun.sh/docs/cli/bunx — `--package`/`-p`.
const BUNX = spec(['--package', '-p'], ['--cwd', '--registry', '--config', '-c']);
// pnpm dlx: https://pnpm.io/cli/dlx — `--package` (repeatable), `--allow-build`, `--cpu`/`--os`/`--libc`.
const PNPM_DLX = spec(
  ['--package'],
  ['--allow-build', '--cpu', '--os', '--libc', '--reporter', '--dir', '-C', '--registry'],
);
// yarn dlx (berry): https://yarnpkg.com/cli/dlx — `-p`/`--package`.
const YARN_DLX = spec(['--package', '-p'], ['--cwd']);
// uvx / uv tool run: https://docs.astral.sh/uv/reference/cli/#uv-tool-run — `--from` names the package; `-p` is the
// Python version there, not a package.
const UVX = spec(
  ['--from'],
  [
    '--with',
    '-w',
    '--with-editable',
    '--with-requirements',
    '--constraints',
    '-c',
    '--overrides',
    '--build-constraints',
    '-b',
    '--python',
    '-p',
    '--index',
    '--index-url',
    '-i',
    '--extra-index-url',
    '--default-index',
    '--find-links',
    '-f',
    '--directory',
    '--project',
    '--cache-dir',
    '--config-file',
    '--env-file',
    '--refresh-package',
    '--reinstall-package',
    '--upgrade-package',
    '-P',
    '--resolution',
    '--prerelease',
    '--exclude-newer',
    '--exclude-newer-package',
    '--index-strategy',
    '--keyring-provider',
    '--link-mode',
    '--color',
    '--python-platform',
    '--config-setting',
    '-C',
    '--no-binary-package',
    '--no-build-package',
    '--allow-insecure-host',
    '--compile-bytecode-package',
    '--torch-backend',
  ],
);
// pipx run: https://pipx.pypa.io/stable/docs/ — `--spec` names the package.
const PIPX_RUN = spec(['--spec'], ['--python', '--pip-args', '--index-url', '-i', '--backend', '--fetch-python']);
// docker run: https://docs.docker.com/reference/cli/docker/container/run/ — the options that take a value.
const DOCKER_RUN = spec(
  [],
  [
    '-a',
    '--attach',
    '--add-host',
    '--annotation',
    '--blkio-weight',
    '--blkio-weight-device',
    '--cap-add',
    '--cap-drop',
    '--cgroup-parent',
    '--cgroupns',
    '--cidfile',
    '--cpu-count',
    '--cpu-percent',
    '--cpu-period',
    '--cpu-quota',
    '--cpu-rt-period',
    '--cpu-rt-runtime',
    '-c',
    '--cpu-shares',
    '--cpus',
    '--cpuset-cpus',
    '--cpuset-mems',
    '--device',
    '--device-cgroup-rule',
    '--device-read-bps',
    '--device-read-iops',
    '--device-write-bps',
    '--device-write-iops',
    '--dns',
    '--dns-option',
    '--dns-opt',
    '--dns-search',
    '--domainname',
    '--entrypoint',
    '-e',
    '--env',
    '--env-file',
    '--expose',
    '--gpus',
    '--group-add',
    '--health-cmd',
    '--health-interval',
    '--health-retries',
    '--health-start-interval',
    '--health-start-period',
    '--health-timeout',
    '-h',
    '--hostname',
    '--ip',
    '--ip6',
    '--ipc',
    '--isolation',
    '--kernel-memory',
    '-l',
    '--label',
    '--label-file',
    '--link',
    '--link-local-ip',
    '--log-driver',
    '--log-opt',
    '--mac-address',
    '-m',
    '--memory',
    '--memory-reservation',
    '--memory-swap',
    '--memory-swappiness',
    '--mount',
    '--name',
    '--network',
    '--net',
    '--network-alias',
    '--net-alias',
    '--oom-score-adj',
    '--pid',
    '--pids-limit',
    '--platform',
    '-p',
    '--publish',
    '--pull',
    '--restart',
    '--runtime',
    '--security-opt',
    '--shm-size',
    '--stop-signal',
    '--stop-timeout',
    '--storage-opt',
    '--sysctl',
    '--tmpfs',
    '--ulimit',
    '-u',
    '--user',
    '--userns',
    '--uts',
    '-v',
    '--volume',
    '--volume-driver',
    '--volumes-from',
    '-w',
    '--workdir',
    '--detach-keys',
    '--cgroup-conf',
    '--chrootdirs',
    '--hooks-dir',
    '--http-proxy',
    '--arch',
    '--os',
    '--variant',
    '--secret',
    '--creds',
  ],
);
// Options before the subcommand (`docker --context ci run ...`, `pnpm --dir x dlx ...`, `npm --prefix x exec ...`).
const DOCKER_GLOBAL = spec(
  [],
  [
    '--config',
    '-c',
    '--context',
    '-H',
    '--host',
    '-l',
    '--log-level',
    '--tlscacert',
    '--tlscert',
    '--tlskey',
    '--connection',
    '--url',
    '--identity',
    '--root',
    '--runroot',
    '--storage-driver',
  ],
);
const PM_GLOBAL = spec(
  [],
  [
    '--dir',
    '-C',
    '--filter',
    '-F',
    '--workspace',
    '-w',
    '--prefix',
    '--cwd',
    '--registry',
    '--loglevel',
    '--userconfig',
  ],
);
const UV_GLOBAL = spec([], ['--directory', '--project', '--cache-dir', '--config-file', '--color', '--python', '-p']);

interface Scanned {
  /** The value of the first package option. */
  fromOption?: string;
  /** The first argument that is not an option (or an option's value). */
  positional?: string;
  positionalIndex: number;
}

/** Reads options until the first positional argument (or `--`, after which the next argument is positional). */
function scan(args: readonly string[], opts: OptionSpec, start = 0): Scanned {
  let fromOption: string | undefined;
  for (let i = start; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      return i + 1 < args.length
        ? { fromOption, positional: args[i + 1], positionalIndex: i + 1 }
        : { fromOption, positionalIndex: -1 };
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      const inline = eq < 0 ? undefined : a.slice(eq + 1);
      if (opts.package.has(name)) {
        const v = inline ?? args[++i];
        if (fromOption === undefined && v !== undefined) fromOption = v;
      } else if (opts.value.has(name) && inline === undefined) {
        i++;
      }
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      // A cluster of short options (`-it`, `-dit`), the first one that takes a value taking the rest or the next.
      for (let k = 1; k < a.length; k++) {
        const name = `-${a[k]}`;
        const takesPackage = opts.package.has(name);
        if (takesPackage || opts.value.has(name)) {
          let v: string | undefined = a.slice(k + 1);
          if (v.startsWith('=')) v = v.slice(1);
          if (v === '') v = args[++i];
          if (takesPackage && fromOption === undefined && v !== undefined) fromOption = v;
          break;
        }
      }
      continue;
    }
    return { fromOption, positional: a, positionalIndex: i };
  }
  return { fromOption, positionalIndex: -1 };
}

/** The executable's name: its path, a Windows extension and case dropped (`C:\...\npx.cmd` → npx). */
export function executableName(command: string): string {
  const base = command.split(/[/\\]/).pop() ?? command;
  return base.replace(/\.(?:exe|cmd|bat|ps1|com)$/i, '').toLowerCase();
}

type Launch = { ecosystem: 'npm' | 'pypi' | 'oci'; spec: string; uvxAt: boolean } | null;

/** The package a command line launches, as written (its spec), or null when it launches none. */
export function launchedPackage(command: string, args: readonly string[], depth = 0): Launch {
  const exe = executableName(command);
  const sub = (global: OptionSpec, names: string[]): number => {
    const s = scan(args, global);
    return s.positional !== undefined && names.includes(s.positional) ? s.positionalIndex + 1 : -1;
  };
  const npmFrom = (opts: OptionSpec, start: number): Launch => {
    const s = scan(args, opts, start);
    const p = s.fromOption ?? s.positional;
    return p === undefined ? null : { ecosystem: 'npm', spec: p, uvxAt: false };
  };
  switch (exe) {
    case 'npx':
      return npmFrom(NPM_EXEC, 0);
    case 'pnpx':
      return npmFrom(PNPM_DLX, 0);
    case 'bunx':
      return npmFrom(BUNX, 0);
    case 'npm': {
      const at = sub(PM_GLOBAL, ['exec', 'x']);
      return at < 0 ? null : npmFrom(NPM_EXEC, at);
    }
    case 'pnpm': {
      const at = sub(PM_GLOBAL, ['dlx']);
      return at < 0 ? null : npmFrom(PNPM_DLX, at);
    }
    case 'yarn': {
      const at = sub(PM_GLOBAL, ['dlx']);
      return at < 0 ? null : npmFrom(YARN_DLX, at);
    }
    case 'bun': {
      const at = sub(PM_GLOBAL, ['x']);
      return at < 0 ? null : npmFrom(BUNX, at);
    }
    case 'uvx':
    case 'uv': {
      let at = 0;
      if (exe === 'uv') {
        const s = scan(args, UV_GLOBAL);
        if (s.positional !== 'tool' || args[s.positionalIndex + 1] !== 'run') return null;
        at = s.positionalIndex + 2;
      }
      const s = scan(args, UVX, at);
      if (s.fromOption !== undefined) return { ecosystem: 'pypi', spec: s.fromOption, uvxAt: true };
      return s.positional === undefined ? null : { ecosystem: 'pypi', spec: s.positional, uvxAt: true };
    }
    case 'pipx': {
      const at = sub(spec([], []), ['run']);
      if (at < 0) return null;
      const s = scan(args, PIPX_RUN, at);
      const p = s.fromOption ?? s.positional;
      return p === undefined ? null : { ecosystem: 'pypi', spec: p, uvxAt: false };
    }
    case 'docker':
    case 'podman': {
      const g = scan(args, DOCKER_GLOBAL);
      if (g.positional === undefined) return null;
      let at = -1;
      if (g.positional === 'run') at = g.positionalIndex + 1;
      else if (g.positional === 'container' && args[g.positionalIndex + 1] === 'run') at = g.positionalIndex + 2;
      if (at < 0) return null;
      const s = scan(args, DOCKER_RUN, at);
      return s.positional === undefined ? null : { ecosystem: 'oci', spec: s.positional, uvxAt: false };
    }
    case 'cmd': {
      // cmd /c npx -y pkg (the documented way to run npx on Windows); /s /q /d before /c are switches.
      let i = 0;
      while (i < args.length && /^\/[sqdSQD]$/.test(args[i])) i++;
      if (depth > 2 || i >= args.length || !/^\/[cCkK]$/.test(args[i]) || i + 1 >= args.length) return null;
      return launchedPackage(args[i + 1], args.slice(i + 2), depth + 1);
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Package specs

const EXACT_SEMVER =
  /^[v=]?\s*((?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$/;
const NPM_NAME_PART = /^[A-Za-z0-9~][A-Za-z0-9._~-]*$/;
const NOT_REGISTRY = /^(?:[./~\\]|[A-Za-z]:[/\\]|[A-Za-z][A-Za-z0-9+.-]*:)/;

/** An npm registry spec (`name`, `name@version`, `@scope/name@range`), or null for anything else. */
export function parseNpmSpec(
  specText: string,
): { name: string; scope?: string; version: string | null; pinned: boolean } | null {
  const s = specText.trim();
  if (NOT_REGISTRY.test(s)) return null;
  const m = /^(?:@([^/@\s]+)\/)?([^/@\s]+)(?:@(.*))?$/s.exec(s);
  if (!m) return null;
  const [, scope, name, range] = m;
  if (!NPM_NAME_PART.test(name) || (scope !== undefined && !NPM_NAME_PART.test(scope))) return null;
  const written = range === undefined || range.trim() === '' ? null : range.trim();
  const exact = written === null ? null : EXACT_SEMVER.exec(written);
  return {
    name: name.toLowerCase(),
    scope: scope?.toLowerCase(),
    version: exact ? exact[1] : written,
    pinned: exact !== null,
  };
}

const PEP508 = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(.*)$/s;
const PEP440_VERSION = /^v?[0-9][0-9A-Za-z.!+_-]*$/;

/**
 * A PyPI requirement (`name`, `name[extra]==1.0`, `name>=1`, uvx's `name@1.0` / `name@latest`), or null for anything
 * else (a URL, a path).
 */
export function parsePypiSpec(
  specText: string,
  uvxAt: boolean,
): { name: string; version: string | null; pinned: boolean } | null {
  const s = specText.trim();
  if (NOT_REGISTRY.test(s)) return null;
  const m = PEP508.exec(s);
  if (!m) return null;
  const name = pypiName(m[1]);
  let rest = m[2].replace(/;.*$/s, '').trim();
  if (rest === '') return { name, version: null, pinned: false };
  if (rest.startsWith('@')) {
    const v = rest.slice(1).trim();
    // PEP 508 `name @ https://...` is a direct reference: not a registry version.
    if (!uvxAt || v === '' || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(v)) return { name, version: null, pinned: false };
    return { name, version: v, pinned: v !== 'latest' && PEP440_VERSION.test(v) && !v.includes('*') };
  }
  rest = rest.replace(/\s+/g, '');
  if (rest.startsWith('(') && rest.endsWith(')')) rest = rest.slice(1, -1);
  const exact = /^===?([^,<>=!~]+)$/.exec(rest);
  if (exact && !exact[1].includes('*')) return { name, version: exact[1], pinned: true };
  return { name, version: rest, pinned: false };
}

/** A Docker image reference normalised as Docker does, or null when it is not one. */
export function parseImage(ref: string): { image: string; version: string | null; pinned: boolean } | null {
  const s = ref.trim();
  if (s === '' || s.startsWith('-') || /\s/.test(s)) return null;
  let rest = s;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^[A-Za-z][A-Za-z0-9]*(?:[+._-][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/.test(digest)) return null;
    digest = digest.toLowerCase();
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (tag === '') return null;
  }
  const parts = rest.split('/');
  if (parts.some((p) => p === '')) return null;
  let registry = 'docker.io';
  if (parts.length > 1 && (parts[0].includes('.') || parts[0].includes(':') || parts[0] === 'localhost')) {
    registry = parts.shift()!.toLowerCase();
    if (registry === 'index.docker.io' || registry === 'registry-1.docker.io') registry = 'docker.io';
  }
  if (registry === 'docker.io' && parts.length === 1) parts.unshift('library');
  const image = `${registry}/${parts.join('/')}`.toLowerCase();
  return { image, version: digest ?? tag, pinned: digest !== null };
}

// ---------------------------------------------------------------------------------------------------------------

const sha256Hex = (text: string): string => nodeCrypto().createHash('sha256').update(text, 'utf8').digest('hex');

/** `cmd:` + SHA-256 hex of the canonical JSON of [command, ...args] (already redacted, home written `~`). */
export function commandIdentity(command: string, args: readonly string[]): string {
  return `cmd:${sha256Hex(JSON.stringify([command, ...args]))}`;
}

/** A URL without user info, query and fragment, in WHATWG serialisation; null when it does not parse. */
export function remoteIdentity(url: string): string | null {
  try {
    const u = new URL(url.trim());
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

const isRemote = (server: ServerForIdentity): boolean => {
  const t = typeof server.transport === 'string' ? server.transport.toLowerCase() : undefined;
  if (t === 'http' || t === 'sse') return true;
  if (t === 'stdio') return false;
  return (server.command === undefined || server.command === '') && typeof server.url === 'string' && server.url !== '';
};

/** The identity of SERVER (see the top of this file). HOME: the client's home directory, written `~` (the service: none). */
export function identity(server: ServerForIdentity, opts: { home?: string } = {}): McpIdentity {
  const { server: s } = redactServer({ command: server.command, args: server.args, url: server.url }, opts);
  if (isRemote(server)) {
    const url = (s.url ?? '').trim();
    return { identity: remoteIdentity(url) ?? url, version: null, pinned: false, kind: 'remote' };
  }
  const command = s.command ?? '';
  const args = s.args ?? [];
  const launch = launchedPackage(command, args);
  if (launch?.ecosystem === 'npm') {
    const p = parseNpmSpec(launch.spec);
    if (p)
      return {
        identity: `pkg:npm/${p.scope ? `%40${p.scope}/` : ''}${p.name}`,
        version: p.version,
        pinned: p.pinned,
        kind: 'npm',
      };
  } else if (launch?.ecosystem === 'pypi') {
    const p = parsePypiSpec(launch.spec, launch.uvxAt);
    if (p) return { identity: `pkg:pypi/${p.name}`, version: p.version, pinned: p.pinned, kind: 'pypi' };
  } else if (launch?.ecosystem === 'oci') {
    const p = parseImage(launch.spec);
    if (p) return { identity: `pkg:oci/${p.image}`, version: p.version, pinned: p.pinned, kind: 'oci' };
  }
  return { identity: commandIdentity(command, args), version: null, pinned: false, kind: 'command' };
}
