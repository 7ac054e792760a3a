#!/usr/bin/env node
// Run before `npm start` and `npm test`: installs the locked dependencies (`npm ci`) when node_modules is missing or
// older than package-lock.json, so that a fresh clone needs nothing but these two commands. Plain Node, no
// dependencies: it runs before any are installed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const mtime = (file) => {
  try {
    return fs.statSync(path.join(root, file)).mtimeMs;
  } catch {
    return undefined;
  }
};
// npm writes node_modules/.package-lock.json last, once an install has finished.
const installed = mtime('node_modules/.package-lock.json');
const locked = mtime('package-lock.json');
if (installed !== undefined && locked !== undefined && installed >= locked) process.exit(0);

console.log(
  installed === undefined
    ? 'installing dependencies (npm ci, once)'
    : 'package-lock.json changed: reinstalling dependencies (npm ci)',
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`npm ci failed (${r.error ? r.error.message : `exit ${r.status}`}); see its output above`);
  process.exit(r.status || 1);
}
