// Reading one configuration file: JSON with comments and trailing commas (jsonc-parser, the parser of VS Code's own
// settings) or TOML (smol-toml). A file that is absent is nothing; a file that cannot be read or parsed is a warning,
// whose message gives a position and never a piece of the file (which may hold a secret).
import fs from 'node:fs';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';

/** Larger files are skipped with a warning (~/.claude.json keeps history, but not this much). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

export type ReadResult =
  { kind: 'absent' } | { kind: 'warning'; message: string } | { kind: 'document'; document: Record<string, unknown> };

function lineColumn(text: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return `line ${line}, column ${offset - last}`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Parses TEXT as JSON with comments; a warning message when it is not a JSON object. */
export function parseJsonConfig(text: string): { document: Record<string, unknown> } | { message: string } {
  const errors: ParseError[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return { document: {} };
  const value: unknown = parseJsonc(body, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  if (errors.length > 0) {
    const e = errors[0];
    return { message: `not valid JSON (${printParseErrorCode(e.error)} at ${lineColumn(body, e.offset)})` };
  }
  if (!isPlainObject(value)) return { message: 'not a JSON object' };
  return { document: value };
}

/** Parses TEXT as TOML; a warning message (a position: smol-toml's own message quotes the line) when it is not TOML. */
export function parseTomlConfig(text: string): { document: Record<string, unknown> } | { message: string } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { document: parseToml(body) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof TomlError) return { message: `not valid TOML (at line ${err.line}, column ${err.column})` };
    return { message: 'not valid TOML' };
  }
}

export async function readConfigFile(file: string, format: 'json' | 'toml'): Promise<ReadResult> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'warning', message: `cannot be read (${code ?? 'error'})` };
  }
  if (!stat.isFile()) return { kind: 'warning', message: 'not a regular file' };
  if (stat.size > MAX_CONFIG_BYTES)
    return { kind: 'warning', message: `larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB: skipped` };
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    return { kind: 'warning', message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const parsed = format === 'json' ? parseJsonConfig(text) : parseTomlConfig(text);
  return 'message' in parsed
    ? { kind: 'warning', message: parsed.message }
    : { kind: 'document', document: parsed.document };
}
