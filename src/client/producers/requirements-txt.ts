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
//
// A requirements file has no fixed name, so besides the usual names (FILE_NAME) discovery reads a file by its content
// (looksLikeRequirements): a `.txt` named on the command line, and any `.txt` in a folder named `requirements` (the
// Django layout: requirements/base.txt, requirements/local.txt with `-r base.txt`). Each such file is its own root,
// as requirements.txt and requirements-dev.txt beside each other are: a root lists what `pip install -r` of that file
// installs, its includes' pins too, so base.txt's pins are direct dependencies of base.txt, local.txt and
// production.txt alike. That is not counting them twice: the assembler keeps one node per name@version and a
// location at its first pin (base.txt, found first), and each root answers "which environment installs this".
// Leaving included files out as roots of their own would need discovery to parse them, and would lose base.txt
// whenever it is installed alone; a constraints file is the exception (mayBeRequirements), since it installs nothing.
import { posix } from 'node:path';
import type { SnapshotNode } from '../../shared/types';
import type { DiscoverableProducer } from '../discover';
import { byCodeUnit, inputError, lockDir, normalize, someOf } from './python-common';
import type { LockfileInput, PackageLocation, ProducedPart } from './types';

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
 *  other names (dev.txt, requirements/base.txt's base.txt) are read when a matched file includes them, when they sit
 *  in a requirements/ folder, or when they are named on the command line, if their content is requirements. */
const FILE_NAME = /^requirements(?:[-_.][^/]*)?\.txt$/;

// ------------------------------------------------------------------------------------------- by content --

/** The options pip accepts on a line of its own in a requirements file (SUPPORTED_OPTIONS in pip's req_file.py). */
const FILE_OPTIONS = new Set([
  '-i',
  '--index-url',
  '--extra-index-url',
  '--no-index',
  '-c',
  '--constraint',
  '-r',
  '--requirement',
  '-e',
  '--editable',
  '-f',
  '--find-links',
  '--no-binary',
  '--only-binary',
  '--prefer-binary',
  '--require-hashes',
  '--pre',
  '--trusted-host',
  '--use-feature',
]);
/** The options pip accepts after a requirement (SUPPORTED_OPTIONS_REQ; --install-option until pip 23.1). */
const REQUIREMENT_OPTIONS = new Set(['--hash', '--global-option', '--install-option', '--config-settings', '-C']);
const SPEC = String.raw`(?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9*._+!-]+`;
const SPECS = String.raw`${SPEC}(?:\s*,\s*${SPEC})*`;
/** A whole PEP 508 requirement: name, extras, then specifiers (maybe in parentheses) or `@ url`, then a marker. */
const STRICT_REQUIREMENT = new RegExp(
  String.raw`^${NAME}\s*(?:\[[A-Za-z0-9._,\s-]*\])?\s*(${SPECS}|\(\s*${SPECS}\s*\)|@\s*\S+)?\s*(?:;(.*))?$`,
);
/** A marker compares one of PEP 508's variables (`python_version < "3.11"`, `"win32" == sys_platform`). */
const MARKER_VARIABLE = new RegExp(
  String.raw`\b(?:python_version|python_full_version|os_name|sys_platform|platform_release|platform_system|` +
    String.raw`platform_version|platform_machine|platform_python_implementation|implementation_name|` +
    String.raw`implementation_version|extra)\b`,
);
const MARKER_OPERATOR = /[<>=!]=|~=|[<>]|\bin\b/;
/** A URL or a local path pip installs from (an archive, a VCS checkout, a project folder). */
const LOCATION = /^(?:[a-z][a-z0-9+.-]*:\/\/|\.{1,2}\/|\/)\S*$/i;

/**
 * Whether a text is a pip requirements file, for a file discovery finds by neither name nor include. Stricter than
 * produce, which reads what pip would and skips the rest with a warning: here every line must be a comment, an option
 * pip knows, or a whole PEP 508 requirement (a marker must name a marker variable), and at least one line must bound
 * a version (`name==1.2.3`, `name>=2`, `name @ url`) or include another file (`-r base.txt`). Prose fails at its first
 * sentence ("Django is the framework" is no requirement, nor is "Note; see below" one with a marker), a list of bare
 * words proves nothing, and a comments-only or empty file says nothing worth a root.
 */
export function looksLikeRequirements(text: string): boolean {
  if (text.includes('\u0000')) return false;
  let bounded = false;
  for (const { text: t } of logicalLines(text.replace(/^\uFEFF/, ''))) {
    if (t.startsWith('-')) {
      const name = t.startsWith('--') ? /^--[A-Za-z][A-Za-z-]*/.exec(t)?.[0] : t.slice(0, 2);
      if (name === undefined || !FILE_OPTIONS.has(name)) return false;
      if (name === '-r' || name === '--requirement') bounded = true;
      continue;
    }
    // The requirement, then its own options (--hash=..., the common case in pip-compile output).
    const [req, option] = t.split(/\s+(?=--?[A-Za-z])/, 2);
    if (option !== undefined && !REQUIREMENT_OPTIONS.has(/^--?[A-Za-z][A-Za-z-]*/.exec(option)![0])) return false;
    if (LOCATION.test(req)) {
      bounded = true;
      continue;
    }
    const m = STRICT_REQUIREMENT.exec(req);
    if (!m || (m[2] !== undefined && !(MARKER_VARIABLE.test(m[2]) && MARKER_OPERATOR.test(m[2])))) return false;
    if (m[1] !== undefined) bounded = true;
  }
  return bounded;
}

/** Files that may be requirements by where they sit: a `.txt` named on the command line, or one in a folder named
 *  `requirements` or one level below it (requirements/envs/dev.txt); elsewhere a walk takes only FILE_NAME, since
 *  a project's other `.txt` files (notes, data, licences) are no business of this client. A constraints file
 *  (constraints.txt, named by `-c`) pins versions without installing anything, so it is never a root of its own. */
function mayBeRequirements(fileName: string, folders: readonly string[], named: boolean): boolean {
  if (!fileName.endsWith('.txt')) return false;
  if (named) return true;
  return (folders[0] === 'requirements' || folders[1] === 'requirements') && !/^constraints?[-_.]/i.test(fileName);
}

export const requirementsProducer: DiscoverableProducer = {
  format: 'requirements.txt',
  matches: (fileName) => FILE_NAME.test(fileName),
  byContent: {
    description: 'a .txt of pip requirements (name==version lines)',
    candidate: mayBeRequirements,
    reads: looksLikeRequirements,
  },
  produce,
};
