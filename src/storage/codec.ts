// Compressed Binary values: snapshots, result chunks and advisory chunks are stored this way (Binary values move
// fast through FerretDB, nested documents do not).
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Binary } from 'mongodb';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

export async function packJson(value: unknown): Promise<Binary> {
  return new Binary(await gzip(Buffer.from(JSON.stringify(value)), { level: 3 }));
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
