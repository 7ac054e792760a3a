// `scanner snapshot [PATH...] [--project P] [--output FILE] [--suppressions FILE]`: the snapshot(s) the scan would
// upload (the repository's suppressions included), without a service. One ecosystem: the snapshot JSON. Several: one
// JSON document per line (stdout), or one file each, named FILE with the ecosystem before its extension
// (snapshot.json → snapshot.javascript.json).
import fs from 'node:fs';
import path from 'node:path';
import { EXIT } from '../errors';
import type { Io } from '../io';
import { COMMON_OPTIONS, USAGE, parse, metadataFlags } from '../args';
import { makeSnapshots } from '../snapshot/make';
import { expiredWarnings, loadSuppressions, todayUtc, type SuppressionsFile } from '../suppressions';

export function outputFileFor(output: string, ecosystem: string, several: boolean): string {
  if (!several) return output;
  const ext = path.extname(output);
  return `${output.slice(0, output.length - ext.length)}.${ecosystem}${ext || '.json'}`;
}

export async function snapshotCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, COMMON_OPTIONS);
  if (values.help) {
    io.out(`${USAGE}\n`);
    return EXIT.ok;
  }
  // The repository's suppressions go into every snapshot (src/client/suppressions.ts).
  let suppressions: SuppressionsFile | undefined;
  const made = makeSnapshots({
    paths: positionals,
    project: values.project ?? io.env.SCANNER_PROJECT,
    metadataFlags: metadataFlags(values),
    env: io.env,
    cwd: io.cwd,
    suppressions: (root) => {
      suppressions = loadSuppressions({ root, flag: values.suppressions, cwd: io.cwd });
      return suppressions?.entries.map((e) => e.suppression) ?? [];
    },
  });
  for (const m of made) for (const w of m.warnings) io.err(`scanner: warning: ${w}\n`);
  if (suppressions) for (const w of expiredWarnings(suppressions, todayUtc())) io.err(`scanner: warning: ${w}\n`);
  const several = made.length > 1;
  for (const m of made) {
    const body = JSON.stringify(m.snapshot);
    if (values.output) {
      const file = path.resolve(io.cwd, outputFileFor(values.output, m.snapshot.ecosystem, several));
      fs.writeFileSync(file, `${body}\n`);
      io.err(
        `scanner: ${m.snapshot.ecosystem} snapshot of ${m.lockfiles.join(', ')}: ${m.snapshot.nodes.length} packages → ${file}\n`,
      );
    } else {
      io.out(`${body}\n`);
    }
  }
  return EXIT.ok;
}
