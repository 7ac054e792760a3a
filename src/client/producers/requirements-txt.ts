// requirements.txt pins → a schemaVersion 1 (flat) part. A requirements file records no graph: only what to install,
// so every pinned package is a direct dependency of one root (module = the file's folder, context = the file's name)
// and nodes have no dependencies. Only exact pins (`name==version`, `name===version`) name an installed version:
// ranges, unpinned names, editables and URLs do not, and are skipped with a warning. pip-compile output (hashes on
// continuation lines, `# via` comments) is the common case.
//
// Environment markers (after `;`) are not evaluated: a pin is listed whatever its marker says, since the snapshot
// describes the project, not one interpreter. `-r` includes are read through input.readFile relative to the file
// that names them (once each, so cycles end); their pins belong to the including file's root. `-c` constraint files
// install nothing (constraints are not introductions) and are not read.
import { posix } from 'node:path';
import type { SnapshotNode } from '../../shared/types';
import { byCodeUnit, inputError, lockDir, normalize, someOf } from './python-common';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** One logical line: continuations joined, comments removed, with the number of the physical line it starts on. */
interface Line {
  text: string;
  line: number;
}

function logicalLines(text: string): Line[] {
  const out: Line[] = [];
  const physical = text.split('\n');
  for (let i = 0; i < physical.length; i++) {
    const start = i + 1;
    let joined = physical[i].replace(/\r$/, '');
    // A line ending in a backslash continues on the next one (pip joins them before removing comments).
    while (joined.endsWith('\\') && i + 1 < physical.length)
      joined = joined.slice(0, -1) + ' ' + physical[++i].replace(/\r$/, '');
    if (joined.endsWith('\\')) joined = joined.slice(0, -1);
    // pip's comment rule: `#` at the start or after whitespace (a URL fragment `x#egg=` is not a comment).
    const t = joined.replace(/(^|\s)#.*$/, '').trim();
    if (t !== '') out.push({ text: t, line: start });
  }
  return out;
}

const NAME = String.raw`[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`;
/** `name[extras] ==version ; marker` (spaces allowed around the operator; a version has no comma, space or `*`). */
const PIN = new RegExp(String.raw`^(${NAME})\s*(?:\[[^\]]*\])?\s*(===?)\s*([A-Za-z0-9][A-Za-z0-9._+!-]*)\s*(?:;.*)?$`);
/** Anything that begins like a requirement: a name, maybe extras, then a specifier, a marker, `@ url` or nothing. */
const REQUIREMENT = new RegExp(String.raw`^(${NAME})\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@(]|$)`);
/** Options that take a file argument whose content matters: -r/--requirement (read), -c/--constraint (not read). */
const FILE_OPTION = /^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?<=^-[rc]))(\S+)$/;

function produce(input: LockfileInput): ProducedPart {
  const top = input.path;
  const dir = lockDir(top);
  const warnings: string[] = [];
  const pins = new Map<string, PackageLocation>();
  const manifests = [top];
  const unpinned: string[] = [];
  const editable: string[] = [];
  const unreadable: string[] = [];
  const seen = new Set<string>([posix.normalize(top)]);

  const read = (file: string, text: string) => {
    for (const { text: t, line } of logicalLines(text)) {
      const at = `${file}:${line}`;
      if (t.startsWith('-')) {
        const opt = FILE_OPTION.exec(t);
        if (opt && (opt[1] === '-r' || opt[1] === '--requirement')) {
          const target = opt[2];
          if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
            unreadable.push(`${at} (${target})`);
            continue;
          }
          const path = posix.normalize(posix.join(posix.dirname(file), target));
          if (seen.has(path)) continue; // read already (or being read: a cycle)
          seen.add(path);
          const included = input.readFile(path);
          if (included === undefined) unreadable.push(`${at} (${path})`);
          else (manifests.push(path), read(path, included.replace(/^\uFEFF/, '')));
        } else if (/^(-r|--requirement|-c|--constraint)$/.test(t))
          throw inputError(file, `line ${line}: ${t} needs a file name`);
        else if (/^(-e|--editable)(\s|=|$)/.test(t)) editable.push(at);
        // Any other option (index URLs, --hash alone, --pre, ...) changes how pip installs, not what.
        continue;
      }
      // Per-requirement options (--hash=..., --config-settings ...) follow the requirement after whitespace.
      const req = t.split(/\s+--?[A-Za-z]/)[0].trim();
      const pin = PIN.exec(req);
      if (pin) {
        const id = `${normalize(pin[1])}@${pin[3]}`;
        if (!pins.has(id)) pins.set(id, { file, line });
      } else if (REQUIREMENT.test(req) || /^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(req)) unpinned.push(`${at} (${req})`);
      else
        throw inputError(
          file,
          `line ${line}: not a requirement or an option: ${JSON.stringify(t.length > 80 ? `${t.slice(0, 80)}…` : t)}`,
        );
    }
  };
  read(top, input.text);

  if (unpinned.length > 0)
    warnings.push(
      `requirements without an exact pin (==) name no installed version and are left out: ${someOf(unpinned)}`,
    );
  if (editable.length > 0)
    warnings.push(`editable requirements (-e) are first-party or local code and are left out: ${someOf(editable)}`);
  if (unreadable.length > 0)
    warnings.push(`included requirements files that could not be read are left out: ${someOf(unreadable)}`);

  const ids = [...pins.keys()].sort(byCodeUnit);
  const nodes: SnapshotNode[] = ids.map((id) => {
    const at = id.lastIndexOf('@');
    return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'direct', dependencies: [] };
  });
  return {
    ecosystem: 'python',
    schemaVersion: 1,
    manifests,
    modules: [{ path: dir, manifest: top, dependencies: [] }],
    roots: [{ module: dir, manifest: top, context: posix.basename(top), dependencies: ids }],
    nodes,
    locations: Object.fromEntries(ids.map((id) => [id, pins.get(id)!])),
    warnings,
  };
}

/** requirements.txt and its usual variants (requirements-dev.txt, requirements_test.txt, requirements.prod.txt);
 *  other names (dev.txt, requirements/base.txt's base.txt) are read when a matched file includes them, or named. */
const FILE_NAME = /^requirements(?:[-_.][^/]*)?\.txt$/;

export const requirementsProducer: Producer = {
  format: 'requirements.txt',
  matches: (fileName) => FILE_NAME.test(fileName),
  produce,
};
