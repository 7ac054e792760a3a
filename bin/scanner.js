#!/usr/bin/env node
// `npx scanner ...`: the operator CLI. Runs the compiled code; `npm run build` (also run by npm start/test) makes it.
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'src', 'cli', 'scanner.js');
if (!fs.existsSync(entry)) {
  console.error('scanner: not built yet; run `npm run build` (npm start and npm test build too)');
  process.exit(2);
}
require(entry).main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); },
);
