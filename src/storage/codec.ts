// The one codec of packed stored fields. Binary values move fast through FerretDB, nested documents do not, so what
// a reader never filters on is stored as one Binary value:
// - gzip-compressed JSON or bytes (packJson, packBytes): snapshots, result chunks, advisory and inventory chunks,
//   attributions, work between activities;
// - plain JSON (packPlainJson): small values decoded on every read, where gzip would cost more than it saves (the
//   details and outcome of a scan document).
// `scanner db show` decodes both for an operator (src/cli/db-show.ts).
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Binary } from 'mongodb';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

export async function packJson(value: unknown): Promise<Binary> {
  return new Binary(await gzip(Buffer.from(JSON.stringify(value)), { level: 3 }));
}

/** A run of list items serialized as one JSON array, and how many items it holds. */
export interface JsonChunk {
  count: number;
  json: string;
}

/**
 * Items in list order cut into JSON arrays of at most `maxCount` items and about `maxBytes` characters each, every
 * item serialized once (its text both sizes the chunk and goes into it).
 */
export function jsonChunks(items: readonly unknown[], maxCount: number, maxBytes: number): JsonChunk[] {
  const chunks: JsonChunk[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const close = () => chunks.push({ count: parts.length, json: `[${parts.join(',')}]` });
  for (const item of items) {
    const text = JSON.stringify(item);
    if (parts.length && (parts.length >= maxCount || bytes + text.length > maxBytes)) {
      close();
      parts = [];
      bytes = 0;
    }
    parts.push(text);
    bytes += text.length;
  }
  close();
  return chunks;
}

/** JSON text already serialized (jsonChunks), gzip-compressed as packJson does. */
export async function packJsonText(json: string): Promise<Binary> {
  return new Binary(await gzip(Buffer.from(json), { level: 3 }));
}

export async function packBytes(bytes: Buffer): Promise<Binary> {
  return new Binary(await gzip(bytes, { level: 3 }));
}

export async function unpackBytes(bin: Binary): Promise<Buffer> {
  return gunzip(Buffer.from(bin.buffer));
}

export async function unpackJson<T>(bin: Binary): Promise<T> {
  return JSON.parse((await unpackBytes(bin)).toString('utf8')) as T;
}

export function packPlainJson(value: unknown): Binary {
  return new Binary(Buffer.from(JSON.stringify(value)));
}

export function unpackPlainJson<T>(bin: Binary): T {
  return JSON.parse(Buffer.from(bin.buffer).toString('utf8')) as T;
}

/** Whether a Binary value holds gzip data (its magic bytes): for tools that decode stored values they did not write. */
export function isGzip(bin: Binary): boolean {
  const b = bin.buffer;
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}
