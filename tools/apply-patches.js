#!/usr/bin/env node
// postinstall: applies patches/ (patch-package). npm also runs postinstall for `npm ci --dry-run` and
// `--package-lock-only`, which install nothing: then there is nothing to patch. Otherwise a patch that does not
// apply fails the install (--error-on-fail): the service must never run on an unpatched driver by accident.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const patched = fs.readdirSync(path.join(root, 'patches')).filter((f) => f.endsWith('.patch'));
// mongodb+7.9.0.patch patches node_modules/mongodb; @scope+name+1.0.0.patch, node_modules/@scope/name.
const installed = patched.some((f) => fs.existsSync(path.join(root, 'node_modules', ...f.split('+').slice(0, -1))));
if (!installed) process.exit(0);
const r = spawnSync(
  process.execPath,
  [require.resolve('patch-package/index.js', { paths: [root] }), '--error-on-fail'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
