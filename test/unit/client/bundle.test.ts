// The client bundle (docs/architecture.md): one dependency-free file; it takes nothing of the server but
// the shared snapshot schema and types; the code of each command and report format is evaluated only when used.
import { builtinModules } from 'node:module';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildClient } = require('../../../tools/build-client.js');

let metafile: {
  inputs: Record<string, unknown>;
  outputs: Record<string, { imports: Array<{ path: string; external?: boolean }>; bytes: number }>;
};
let text: string;

beforeAll(async () => {
  const r = await buildClient({ write: false });
  metafile = r.metafile;
  text = r.outputFiles[0].text;
}, 60_000);

test('every input is client code, the shared snapshot schema and types, or a reviewed parsing library', () => {
  // smol-toml (uv.lock, poetry.lock) bundled in; yaml (the fallback of the pnpm and yarn berry readers) as a string
  // compiled on first use (tools/build-client.js): both dependency-free.
  // Of the service, only src/shared: the snapshot's types and schema limits; for --format cyclonedx the service's own
  // SBOM builder, with the inventory ids and package-name rules it derives bom-refs and purls from; for scanner mcp
  // the MCP shapes and redaction shared with the service. And
  // jsonc-parser (JSON with comments: the agents' configuration files), its ESM build.
  const allowed =
    /^src\/client\/|^src\/shared\/|^node_modules\/smol-toml\/|^node_modules\/jsonc-parser\/lib\/esm\/|^lazy-yaml:yaml$/;
  const inputs = Object.keys(metafile.inputs).map((p) => p.split(path.sep).join('/'));
  expect(inputs.filter((p) => !allowed.test(p))).toEqual([]);
  expect(inputs).toEqual(
    expect.arrayContaining([
      'src/client/cli.ts',
      'src/client/commands/scan.ts',
      'src/client/producers/npm-lock.ts',
      'src/client/commands/mcp.ts',
      'src/shared/mcp/redact.ts',
      'node_modules/jsonc-parser/lib/esm/main.js',
    ]),
  );
});

test('the only imports left in the file are node built-ins', () => {
  const [out] = Object.values(metafile.outputs);
  const external = out.imports.filter((i) => i.external).map((i) => i.path);
  expect(external.length).toBeGreaterThan(0);
  const builtins = new Set(builtinModules);
  expect(external.filter((p) => !(p.startsWith('node:') || builtins.has(p)))).toEqual([]);
  expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
  // Loaded at start: only the cheap ones. https (with tls), http and crypto are required on first use.
  const hoisted = [...text.matchAll(/^import .* from ["']((?:node:)?[a-z_/]+)["'];$/gm)].map((m) =>
    m[1].replace(/^node:/, ''),
  );
  expect([...new Set(hoisted)].sort()).toEqual(['fs', 'module', 'os', 'path', 'util']);
  expect(text).toMatch(/__require\("node:https"\)/);
});

test('commands, HTTP and report formats are lazily initialised modules: loading the file runs none of them', () => {
  for (const name of ['snapshot', 'scan', 'http', 'scans', 'table', 'json', 'sarif', 'make', 'npm_lock']) {
    expect(text).toMatch(new RegExp(`^var init_${name} = __esm\\(`, 'm'));
  }
  // scanner mcp, by file (esbuild numbers the names it sees twice: discover, scan ...): jsonc-parser included.
  const mcpModules = [
    'src/client/commands/mcp.ts',
    'src/client/mcp/discover.ts',
    'src/client/mcp/introspect.ts',
    'src/client/mcp/hook.ts',
    'src/client/mcp/scan.ts',
    'src/shared/mcp/redact.ts',
    'node_modules/jsonc-parser/lib/esm/main.js',
  ];
  for (const file of mcpModules)
    expect(text).toMatch(new RegExp(`^var init_\\w+ = __esm\\(\\{\\n\\s+"${file.replace(/[.]/g, '\\.')}"`, 'm'));
  // Outside the module wrappers, the file's own top level only starts the command line.
  const tail = text.slice(text.lastIndexOf('// src/client/cli.ts'));
  expect(tail).not.toMatch(/init_(scan|snapshot|table|json|sarif|http|mcp|introspect|hook|redact|discover\d*)\(\)/);
});

test('the version is written in at build time', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('../../../package.json');
  expect(text).toContain(`VERSION = true ? ${JSON.stringify(version)} : "dev"`);
});

test('the built file reads YAML outside the fast reader (through yaml, compiled on first use) to the same snapshot', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runClient } = require('../../helpers/client');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const fixture = path.resolve(__dirname, '../../fixtures/pnpm/workspace-v9');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yaml-fallback-'));
  try {
    fs.cpSync(fixture, dir, { recursive: true });
    const fast = await runClient(['snapshot', dir, '--project', 'p'], {});
    // A comment line is YAML pnpm never writes: the fast reader gives up on it and yaml reads the file.
    const lock = path.join(dir, 'pnpm-lock.yaml');
    fs.writeFileSync(lock, `# edited by hand\n${fs.readFileSync(lock, 'utf8')}`);
    const slow = await runClient(['snapshot', dir, '--project', 'p'], {});
    expect([fast.code, slow.code]).toEqual([0, 0]);
    const a = JSON.parse(fast.stdout);
    const b = JSON.parse(slow.stdout);
    expect(b.nodes).toEqual(a.nodes);
    expect(b.roots).toEqual(a.roots);
    expect(b.nodes.length).toBeGreaterThan(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
