// `scanner db show scan|findings ID`: a stored scan, or its findings, decoded. mongosh shows the packed fields of a
// scan and its result chunks as Binary blobs; this prints them as the JSON they hold, for an operator at a prompt.
import { Binary } from 'mongodb';
import { isGzip, unpackBytes } from '../storage/codec';
import type { Store } from '../storage/mongo';
import { unpack } from '../storage/scan-document';

/** A value with every Binary inside decoded: gzip or plain JSON to its value, gzip text to a string, other bytes to base64. */
export async function decodeStored(value: unknown): Promise<unknown> {
  if (value instanceof Binary) {
    const bytes = isGzip(value) ? await unpackBytes(value) : Buffer.from(value.buffer);
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return Buffer.from(text, 'utf8').equals(bytes) ? text : { base64: bytes.toString('base64') };
    }
  }
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Promise.all(value.map(decodeStored));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await decodeStored(v);
  return out;
}

export class NotStored extends Error {}

/** The scan's document as stored, each packed field decoded, and the scan as the service reads it. */
export async function showScan(store: Store, scanId: string): Promise<{ stored: unknown; scan: unknown }> {
  const doc = await store.c.scans.findOne({ _id: scanId });
  if (!doc) throw new NotStored(`no scan ${scanId} in this database`);
  return { stored: await decodeStored(doc), scan: unpack(doc) };
}

/** A scan's stored findings in list order (and its module metadata, for a v2 scan), decoded from their chunks. */
export async function showFindings(
  store: Store,
  scanId: string,
): Promise<{ scanId: string; status: string; chunks: number; findings: unknown[]; modules?: unknown }> {
  const scan = await store.c.scans.findOne({ _id: scanId }, { projection: { status: 1 } });
  if (!scan) throw new NotStored(`no scan ${scanId} in this database`);
  const docs = await store.c.scanResults.find({ scanId }).toArray();
  const chunks = docs.filter((d) => d.n >= 0).sort((a, b) => a.n - b.n);
  const findings: unknown[] = [];
  for (const c of chunks) findings.push(...((await decodeStored(c.data)) as unknown[]));
  const modules = docs.find((d) => d.n === -1);
  return {
    scanId,
    status: scan.status,
    chunks: chunks.length,
    findings,
    ...(modules ? { modules: await decodeStored(modules.data) } : {}),
  };
}
