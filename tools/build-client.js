#!/usr/bin/env node
// Bundles the CI client (src/client) into one dependency-free ES module, dist/cli/scanner.mjs, which the service
// serves at GET /cli/scanner.mjs and the package's `scanner` bin runs. Part of `npm run build`.
// Not minified: users fetch this file and run it in CI, so it stays readable for whoever wants to audit it.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');
const OUTFILE = path.join(ROOT, 'dist', 'cli', 'scanner.mjs');

/**
 * The `yaml` library is the fallback of the pnpm and yarn berry readers, for YAML those tools do not write (their own
 * readers handle what they write). Bundled as code it is most of the file, and Node compiles an ES module's whole
 * text at start: about 10 ms of every run, `--version` included. So it goes in as a string, compiled (as CommonJS,
 * with the bundle's own require) the first time it is called. Only the functions the client calls are exported.
 */
async function lazyYamlPlugin() {
  const chunk = await esbuild.build({
    entryPoints: [require.resolve('yaml', { paths: [ROOT] })],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    legalComments: 'inline',
    logLevel: 'warning',
    write: false,
  });
  const source = chunk.outputFiles[0].text;
  return {
    name: 'lazy-yaml',
    setup(b) {
      b.onResolve({ filter: /^yaml$/ }, () => ({ path: 'yaml', namespace: 'lazy-yaml' }));
      b.onLoad({ filter: /.*/, namespace: 'lazy-yaml' }, () => ({
        loader: 'js',
        contents: [
          `const SOURCE = ${JSON.stringify(source)};`,
          'let loaded;',
          'function yaml() {',
          '  if (!loaded) {',
          '    const module = { exports: {} };',
          "    new Function('module', 'exports', 'require', SOURCE)(module, module.exports, require);",
          '    loaded = module.exports;',
          '  }',
          '  return loaded;',
          '}',
          'export function parse(src, reviver, options) { return yaml().parse(src, reviver, options); }',
          // The suppressions file reader (src/client/suppressions.ts) keeps line numbers: the document API.
          'export function parseDocument(src, options) { return yaml().parseDocument(src, options); }',
          'export class LineCounter { constructor() { return new (yaml().LineCounter)(); } }',
          ...['isAlias', 'isMap', 'isPair', 'isScalar', 'isSeq'].map(
            (name) => `export function ${name}(node) { return yaml().${name}(node); }`,
          ),
        ].join('\n'),
      }));
    },
  };
}

/** @param {{ write?: boolean }} [opts] @returns {Promise<import('esbuild').BuildResult & { metafile: import('esbuild').Metafile }>} */
async function buildClient(opts = {}) {
  const { version } = require(path.join(ROOT, 'package.json'));
  return esbuild.build({
    plugins: [await lazyYamlPlugin()],
    absWorkingDir: ROOT,
    entryPoints: ['src/client/cli.ts'],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Only node: built-ins may stay imports; anything else must be bundled or the build fails.
    packages: 'bundle',
    // jsonc-parser (the MCP configuration reader) ships a UMD build as `main` that esbuild cannot follow (its
    // requires are inside a factory); its ESM build is `module`.
    mainFields: ['module', 'main'],
    // src/client/builtins.ts loads some built-ins with require() on first use; an ES module has none of its own.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __scannerCreateRequire } from 'node:module';\nconst require = __scannerCreateRequire(import.meta.url);",
    },
    define: { __SCANNER_VERSION__: JSON.stringify(version) },
    legalComments: 'inline',
    logLevel: 'warning',
    metafile: true,
    write: opts.write !== false,
  });
}

module.exports = { buildClient, OUTFILE };

if (require.main === module) {
  buildClient().then(
    (r) => {
      const bytes = Object.values(r.metafile.outputs)[0].bytes;
      console.log(`client bundle: ${path.relative(ROOT, OUTFILE)} (${(bytes / 1024).toFixed(0)} KiB)`);
    },
    (err) => {
      console.error(err.message ?? err);
      process.exit(1);
    },
  );
}
