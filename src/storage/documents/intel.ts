// Stored documents of the intelligence feeds (KEV, EPSS): packed generations, see storage/intel.ts.
import type { Binary } from 'mongodb';
import type { IntelKind } from '../../domain/intel/refused';

/**
 * One imported feed file: its metadata, written after all of its chunks. Becomes current when the pointer (settings
 * `intel:<kind>`) names it. _id = `kev_…` or `eps_…`.
 */
export interface IntelGenerationDoc {
  _id: string;
  kind: IntelKind;
  /** When it was imported. */
  createdAt: Date;
  /** The last import that found this very file again (unchanged), if any. */
  checkedAt?: Date;
  /** Set when another generation became current instead: two steps back, it is deleted. */
  supersededAt?: Date;
  /** Where it came from: an https URL or a local path. */
  source: string;
  /** sha256 of the decompressed file (and, for EPSS, of the score date given): an unchanged file is not stored again. */
  digest: string;
  /** Entries (KEV) or rows (EPSS). */
  count: number;
  chunks: number;
  /** KEV */
  catalogVersion?: string;
  /** KEV: the catalog's own date-time. */
  dateReleased?: string;
  /** EPSS: null when the file had no model_version. */
  modelVersion?: string | null;
  /** EPSS: YYYY-MM-DD */
  scoreDate?: string;
}

/**
 * The data of a generation, gzip-compressed JSON (storage/codec.ts): KEV entries as [cve, dateAdded, dueDate,
 * knownRansomwareCampaignUse] tuples; EPSS rows as {cves, scores, percentiles} arrays. _id = `${generation}:${n}`.
 */
export interface IntelChunkDoc {
  _id: string;
  generation: string;
  kind: IntelKind;
  n: number;
  createdAt: Date;
  data: Binary;
}
