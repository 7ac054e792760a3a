#!/usr/bin/env node
// Builds the web app (web/, Preact + Vite) into dist/web, served by the API under /app (src/http/web/routes.ts).
// Part of `npm run build`: generates the API's types from the OpenAPI document (tools/openapi-types.js →
// web/src/api-types.gen.ts), type-checks web/ with its own tsconfig, builds, then checks two promises of issue 17:
// the first page loads at most 100 KB of gzipped JavaScript, and index.html holds no inline script or style (the
// CSP forbids them). Either failing fails the build.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');
const { generateApiTypes } = require('./openapi-types');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'web');
const FIRST_PAGE_JS_LIMIT = 100 * 1024;

/**
 * The JavaScript files the index loads before anything is shown: the entry chunk and its static imports,
 * transitively (Vite's manifest), with their gzipped sizes. Lazy views (dynamicImports) are not counted.
 * @param {string} [outDir]
 * @returns {{ files: { file: string, gzip: number }[], total: number }}
 */
function firstPageJs(outDir = OUT) {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite', 'manifest.json'), 'utf8'));
  const entries = Object.keys(manifest).filter((k) => manifest[k].isEntry);
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const i of manifest[key].imports ?? []) visit(i);
  };
  entries.forEach(visit);
  const files = [...seen]
    .map((k) => manifest[k].file)
    .filter((f) => f.endsWith('.js'))
    .map((file) => ({ file, gzip: zlib.gzipSync(fs.readFileSync(path.join(outDir, file)), { level: 9 }).length }));
  return { files, total: files.reduce((s, f) => s + f.gzip, 0) };
}

/** Inline <script> (with content) or <style>, or a style="" attribute, in the built index: the CSP would block it. */
function inlineCode(html) {
  const found = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi))
    if (!/\bsrc=/.test(m[1]) || m[2].trim()) found.push(m[0].slice(0, 80));
  for (const m of html.matchAll(/<style\b[^>]*>/gi)) found.push(m[0]);
  for (const m of html.matchAll(/\sstyle\s*=/gi)) found.push(m[0]);
  for (const m of html.matchAll(/\son[a-z]+\s*=/gi)) found.push(m[0]);
  return found;
}

async function main() {
  await generateApiTypes();
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'web', 'tsconfig.json'), '--noEmit'],
    { stdio: 'inherit' },
  );
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'web', 'vite.config.mts'), logLevel: 'warn', build: { manifest: true } });
  const html = fs.readFileSync(path.join(OUT, 'index.html'), 'utf8');
  const inline = inlineCode(html);
  if (inline.length) throw new Error(`dist/web/index.html holds inline code the CSP forbids: ${inline.join(', ')}`);
  const js = firstPageJs();
  const kb = (n) => (n / 1024).toFixed(1);
  if (js.total > FIRST_PAGE_JS_LIMIT) {
    throw new Error(
      `the first page loads ${kb(js.total)} KB of gzipped JavaScript (limit ${kb(FIRST_PAGE_JS_LIMIT)} KB): ${js.files.map((f) => `${f.file} ${kb(f.gzip)} KB`).join(', ')}`,
    );
  }
  if (process.env.BUILD_WEB_VERBOSE) console.log(`web: first page ${kb(js.total)} KB gzipped JS`);
}

module.exports = { firstPageJs, inlineCode, FIRST_PAGE_JS_LIMIT };

if (require.main === module) {
  main().catch((e) => {
    console.error(`build-web: ${e.message ?? e}`);
    process.exit(1);
  });
}
