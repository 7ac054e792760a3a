// Stored documents of the dependency inventory.
import type { Binary } from 'mongodb';

/**
 * A completed scan's dependency inventory, items in list order, gzip-compressed JSON, split in
 * chunks. _id = `${scanId}:${n}`; `chunks` (how many there are) is on every one of them.
 */
export interface InventoryChunkDoc {
  _id: string;
  scanId: string;
  n: number;
  chunks: number;
  count: number;
  data: Binary;
}

/**
 * A scan whose inventory is written, found by its project (top-level equality): the candidates for "the latest
 * completed scan of each ecosystem". _id = the scan id; written before the scan is marked completed, so a reader
 * checks the scan's status. Entries that can no longer be the latest are deleted (storage/inventory.ts).
 */
export interface InventoryHeadDoc {
  _id: string;
  projectId: string;
  ecosystem: string;
  startedAt: Date;
}
