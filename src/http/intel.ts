// The intelligence feeds as the API's reads join them (docs/intelligence.md): the current KEV catalog and EPSS scores
// held in memory by the storage layer, reloaded when a new generation is imported.
import { NO_INTEL, type Intel } from '../domain/intel/types';
import type { Store } from '../storage/mongo';

/** The feeds in force for a read. */
export async function currentIntel(_store: Store): Promise<Intel> {
  return NO_INTEL; // wired to src/storage/intel.ts loadIntel once the feeds land
}
