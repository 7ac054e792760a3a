#!/usr/bin/env node
// `npx scanner ...`. `snapshot` and `scan` are the CI client: the same bundle the service serves at
// GET /cli/scanner.mjs (dist/cli/scanner.mjs). The other commands are the operator's (src/cli/scanner.ts).
// Both are made by `npm run build` (also run by npm start and npm test).
const path = require('node:path');
const fs = require('node:fs');
const { pathToFileURL } = require('node:url');

const dist = path.join(__dirname, '..', 'dist');
const CLIENT_COMMANDS = new Set(['snapshot', 'scan', 'version', '--version']);
const command = process.argv[2];

function built(file) {
  if (fs.existsSync(file)) return true;
  console.error('scanner: not built yet; run `npm run build` (npm start and npm test build too)');
  process.exitCode = 2;
  return false;
}

if (CLIENT_COMMANDS.has(command)) {
  const client = path.join(dist, 'cli', 'scanner.mjs');
  // The bundle runs its command line from process.argv when imported, exactly as `node scanner.mjs ...` does.
  if (built(client)) import(pathToFileURL(client).href);
} else {
  const operator = path.join(dist, 'src', 'cli', 'scanner.js');
  const help = command === undefined || command === 'help' || command === '--help' || command === '-h';
  if (built(operator)) {
    if (help) {
      console.log(
        'CI client:\n  scanner snapshot|scan ...   (scanner scan --help for the options)\noperator commands:',
      );
    }
    require(operator)
      .main(process.argv.slice(2))
      .then(
        (code) => process.exit(code ?? 0),
        (err) => {
          console.error(err instanceof Error ? err.message : err);
          process.exit(1);
        },
      );
  }
}
