// A completed v2 scan's module metadata is stored beside its results (storage/results.ts), not in the scan document
// that lists decode: attached here for the Scan resource and the findings views.
import type { ScanDoc } from '../../storage/documents/scans';
import type { Store } from '../../storage/mongo';
import { readModules } from '../../storage/results';

export async function withModules(store: Store, scan: ScanDoc): Promise<ScanDoc> {
  if (scan.status === 'completed' && scan.moduleCount) scan.modules = await readModules(store, scan._id);
  return scan;
}
