// The scan list's stored fields under their names: a region's group (`g` before) and a list token's batch and token
// (`b` and `t` before). Run at start by runMigrations (./index.ts). Idempotent: a document renamed already no longer
// matches. A list token not renamed yet reads as missing, which only costs the process's list cache one read.
import type { Store } from '../mongo';

export async function renameScanListFields(store: Store): Promise<{ regions: number; tokens: number }> {
  const regions = await store.db
    .collection('scanRegions')
    .updateMany({ g: { $exists: true } }, { $rename: { g: 'group' } });
  const tokens = await store.db
    .collection('scanListTokens')
    .updateMany({ b: { $exists: true } }, { $rename: { b: 'batch', t: 'token' } });
  return { regions: regions.modifiedCount, tokens: tokens.modifiedCount };
}
