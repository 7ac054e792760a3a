// Node built-ins that only some commands need, loaded on first use. The bundle is one ES module, and esbuild hoists
// every static import to its top, where all are loaded before the first line runs: node:https (with tls) and
// node:crypto alone cost 15-20 ms of a `scanner snapshot` that needs neither. `require` here is node's own in the
// compiled sources and, in the bundle, the createRequire(import.meta.url) that tools/build-client.js puts on top.
/* eslint-disable @typescript-eslint/no-require-imports */
export const nodeCrypto = (): typeof import('node:crypto') => require('node:crypto');
export const nodeHttp = (): typeof import('node:http') => require('node:http');
export const nodeHttps = (): typeof import('node:https') => require('node:https');
export const nodeChildProcess = (): typeof import('node:child_process') => require('node:child_process');
