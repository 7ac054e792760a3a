// Stored documents of advisory generations and their chunks.
import type { Binary } from 'mongodb';

export interface AdvisoryGenerationDoc {
  _id: string;
  createdAt: Date;
  previous: string | null;
  advisoryCount: number;
  chunks: number;
  digest: string;
  counts: Record<string, number>;
  sources: string[];
}

/** Immutable advisory data of one generation: gzip JSON array of OSV advisories. _id = `${generation}:${n}`. */
export interface AdvisoryChunkDoc {
  _id: string;
  generation: string;
  n: number;
  data: Binary;
}
