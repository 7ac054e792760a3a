#!/usr/bin/env node
// `npx scanner ...`: the operator CLI. Runs the compiled code; `npm run build` (also run by npm start/test) makes it.
require('../dist/src/cli/scanner.js').main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); },
);
