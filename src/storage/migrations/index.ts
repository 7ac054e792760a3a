// Data migrations: run at start by every process (`npm start`, the API, the worker, `scanner` commands that open the
// store), after ensureIndexes and before the process serves. Each is idempotent and safe to run in several processes
// at once; one that finished is recorded in the settings collection (`migration:<id>`) and skipped after that.
import { ensureIndexes, isDuplicateKey, type Store } from '../mongo';
import { moveScanFieldsToTopLevel } from './scan-top-level-fields';
import { renameScanListFields } from './scan-list-field-names';
import { refileLegacyScans } from './scan-list-regions';
import { fileTrackedScans } from './tracked-scans';
import { analysesAsRevisions } from './analysis-revisions';

export interface Migration {
  id: string;
  what: string;
  run(store: Store): Promise<unknown>;
}

/** In the order they run. Never reorder or rename: an id is what a database remembers. */
export const MIGRATIONS: readonly Migration[] = [
  // Records its own completion (settings 'scanListRegions'), from before this list existed.
  {
    id: 'scan-list-regions',
    what: 'scans stored before the scan list time partition filed into regions',
    run: (store) => refileLegacyScans(store),
  },
  {
    id: 'scan-list-field-names',
    what: 'scan list regions and tokens: g, b and t renamed group, batch and token',
    run: renameScanListFields,
  },
  {
    id: 'scan-top-level-fields',
    what: 'scan status, failure reason, project, target, ecosystem, times and counts as top-level fields',
    run: moveScanFieldsToTopLevel,
  },
  {
    id: 'tracked-scans',
    what: 'completed tracked scans filed by base commit and month, for the comparison of scans',
    run: fileTrackedScans,
  },
  {
    id: 'analysis-revisions',
    what: "alerts' analyses stored as revision documents (_id alertId:rev) instead of one document per alert",
    run: analysesAsRevisions,
  },
];

const settingId = (m: Migration) => `migration:${m.id}`;

/** Runs every migration not recorded as done; returns the ids of those run. */
export async function runMigrations(store: Store, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const ran: string[] = [];
  for (const m of migrations) {
    if (await store.c.settings.findOne({ _id: settingId(m) })) continue;
    const result = await m.run(store);
    ran.push(m.id);
    // Two processes starting on one database both get here: the other one's record is as good as ours.
    await store.c.settings
      .updateOne({ _id: settingId(m) }, { $set: { value: { at: new Date().toISOString(), result } } }, { upsert: true })
      .catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
  }
  return ran;
}

/** Indexes, then migrations: what a process does with the store before it serves. */
export async function prepareStore(store: Store): Promise<void> {
  await ensureIndexes(store);
  await runMigrations(store);
}
