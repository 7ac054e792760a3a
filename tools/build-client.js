#!/usr/bin/env node
// Bundles the CI client (src/client) into one dependency-free ES module, dist/cli/scanner.mjs, which the service
// serves at GET /cli/scanner.mjs and the package's `scanner` bin runs (platform.md §7). Part of `npm run build`.
// Not minified: users fetch this file and run it in CI, so it stays readable for whoever wants to audit it.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');
const OUTFILE = path.join(ROOT, 'dist', 'cli', 'scanner.mjs');

/** @param {{ write?: boolean }} [opts] @returns {Promise<import('esbuild').BuildResult & { metafile: import('esbuild').Metafile }>} */
function buildClient(opts = {}) {
  const { version } = require(path.join(ROOT, 'package.json'));
  return esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/client/cli.ts'],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Only node: built-ins may stay imports; anything else must be bundled or the build fails.
    packages: 'bundle',
    // src/client/builtins.ts loads some built-ins with require() on first use; an ES module has none of its own.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __scannerCreateRequire } from 'node:module';\nconst require = __scannerCreateRequire(import.meta.url);" },
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
