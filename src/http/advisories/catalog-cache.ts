// The advisories of the current generation as GET /v1/advisories/{id} reads them (src/domain/advisory-page/catalog.ts):
// built once per generation in each API process, at its first read (generations are immutable; the current one is
// one settings document, read on every request). The last two generations are kept, so a request that read the
// previous pointer just before an import still finds its catalog.
import { AdvisoryCatalog } from '../../domain/advisory-page';
import { currentGeneration, loadGeneration } from '../../storage/advisories';
import type { Store } from '../../storage/mongo';

const KEPT = 2;
const catalogs = new Map<string, Promise<AdvisoryCatalog>>();
const EMPTY = new AdvisoryCatalog([]);

/** The catalog of the current advisory generation (empty before any import). */
export async function currentCatalog(store: Store): Promise<AdvisoryCatalog> {
  const generation = await currentGeneration(store);
  if (generation === null) return EMPTY;
  let catalog = catalogs.get(generation);
  if (!catalog) {
    catalog = loadGeneration(store, generation).then((advisories) => new AdvisoryCatalog(advisories));
    catalog.catch(() => catalogs.delete(generation)); // a failed load is tried again by the next read
    catalogs.set(generation, catalog);
    for (const old of catalogs.keys()) if (catalogs.size > KEPT) catalogs.delete(old);
  }
  return catalog;
}
