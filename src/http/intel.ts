// The intelligence feeds as the API's reads join them (docs/intelligence.md): the current KEV catalog and EPSS scores
// held in memory by the storage layer (src/storage/intel.ts loadIntel: its pointers read at most once a second, a
// feed reloaded only when a new generation was imported).
import type { Intel } from '../domain/intel/types';
import { loadIntel } from '../storage/intel';
import type { Store } from '../storage/mongo';

/** The feeds in force for a read. */
export const currentIntel = (store: Store): Promise<Intel> => loadIntel(store);
