// `scanner snapshot [PATH...] [--project P] [--output FILE]`: the snapshot(s) the scan would upload, without a
// service. One ecosystem: the snapshot JSON. Several: one JSON document per line (stdout), or one file each, named
// FILE with the ecosystem before its extension (snapshot.json → snapshot.javascript.json).
import fs from 'node:fs';
import path from 'node:path';
import { EXIT } from '../errors';
import type { Io } from '../io';
import { COMMON_OPTIONS, USAGE, parse, metadataFlags } from '../args';
import { makeSnapshots } from '../snapshot/make';

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
  const made = makeSnapshots({
    paths: positionals,
    project: values.project ?? io.env.SCANNER_PROJECT,
    metadataFlags: metadataFlags(values),
    env: io.env,
    cwd: io.cwd,
  });
  for (const m of made) for (const w of m.warnings) io.err(`scanner: warning: ${w}\n`);
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
