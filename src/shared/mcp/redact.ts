// Redaction of MCP server configurations: one function, shared by the CI client (which redacts before
// anything leaves the machine) and the service (which redacts again before anything is stored, and raises
// secret_in_config from what was redacted). Dependency-free: the client bundle imports this file.
//
// Safe to apply twice: the output of every rule is left as it is by every rule, so redact(redact(x)) === redact(x), and
// "was anything redacted" is read from the output (it holds the marker), so a configuration the client already
// redacted still tells the service that it held a secret.
//
// What is redacted (each replaced by `[REDACTED]`):
// - known token formats: GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), OpenAI and Anthropic (sk-, sk-ant-),
//   Stripe (sk_live_, rk_test_ ...), Slack (xoxb-, xoxp-, xoxa-, xoxs- ..., xapp-), AWS access key ids (AKIA, ASIA),
//   Google API keys (AIza), GitLab (glpat- ...), npm (npm_), PyPI (pypi-), Hugging Face (hf_), DigitalOcean, Shopify,
//   Linear, Notion, Figma, SendGrid, Atlassian, Airtable, and PEM private key blocks;
// - JSON Web Tokens (three base64url parts, the first two starting `eyJ`);
// - the value after an authorization scheme (`Bearer x`, `Basic x`, `Token x`, `Bot x`);
// - the values of options, variables and keys whose name says they hold a secret: `--token`, `--api-key`,
//   `--password`, `--secret` and their relatives (`--github-token`, `--client-secret`, `--access-key` ...), as
//   `--name=value`, `--name value` (in text; in an argument list, the next argument), `NAME=value`, `name: value` and
//   `"name": "value"`;
// - in URLs: the user info, every query value, and the values of a fragment written as `k=v` pairs;
// - runs of 20 or more characters of the base64/base64url alphabet with at least 3.5 bits of Shannon entropy per
//   character, unless they are part of a filesystem path (a word starting `/`, `~/`, `./`, `../`, `\\` or `C:\`),
//   read as words (every piece between `/ _ - . + =` is a lowercase, uppercase, capitalised or camel-case word,
//   optionally followed by digits: package names such as `mcp-server-kubernetes-readonly`), or are a content digest
//   (`sha256:<hex>`) or a commit after `@` or `#`.
// Never redacted: `${...}` and `$NAME` references to variables, which name a secret without holding it.

export const REDACTED = '[REDACTED]';

/** Entropy (bits per character) from which a long run of token characters counts as a secret. */
export const MIN_SECRET_ENTROPY = 3.5;
/** Length from which a run of token characters is examined for entropy. */
export const MIN_SECRET_LENGTH = 20;

/** Shannon entropy of the characters of S, in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  const n = [...s].length;
  let h = 0;
  for (const k of counts.values()) {
    const p = k / n;
    h -= p * Math.log2(p);
  }
  return h;
}

const REFERENCE = /^(?:\$\{(?:[A-Za-z_][A-Za-z0-9_]*:)?[A-Za-z_][A-Za-z0-9_.-]*\}|\$[A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * A reference to a variable, not a value: `${NAME}`, `${env:NAME}`, `${input:id}` (VS Code, Cursor), `${workspaceFolder}`,
 * or `$NAME` (Gemini CLI). A default (`${NAME:-value}`) is a literal value.
 */
export const isReference = (value: string): boolean => REFERENCE.test(value);

const HEADER_REFERENCE = /^[A-Za-z][A-Za-z0-9._-]*\s+(\S+)$/;

/** A header value that is a reference, alone or after an authorization scheme (`Bearer ${input:token}`). */
export function isHeaderReference(value: string): boolean {
  if (isReference(value)) return true;
  const m = HEADER_REFERENCE.exec(value);
  return m !== null && isReference(m[1]);
}

/** A value left as it is by the rules that redact what follows a name: empty, already redacted, or a reference. */
const kept = (value: string): boolean => value === '' || value === REDACTED || isReference(value);

const SECRET_NAME =
  /(?:^|[_.-])(?:token|secret|password|passwd|passphrase|apikey|api[_-]?key|(?:access|secret|private|account|master|client|signing|encryption|app|auth|license|subscription)[_-]?key|credentials?|auth|authorization|pat|cookie)$|[_.-]pwd$/;

/**
 * Whether a name (an option, a variable, a JSON key, a header) says it holds a secret: it ends with token, secret,
 * password, api-key, access-key, credentials, auth, authorization ..., in any of kebab, snake, dotted or camel case.
 */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
  return SECRET_NAME.test(words);
}

/** An option (`--token`, `-password`) whose value is the next argument and is a secret. */
export const isSecretFlag = (arg: string): boolean => /^--?[A-Za-z][A-Za-z0-9_.-]*$/.test(arg) && isSecretName(arg);

// Known token formats. Each starts at a token boundary and asks for the length its issuer documents (or more), so
// that names sharing a prefix (the PyPI package hf_transfer, an npm script npm_run) are left alone.
const TOKEN_PATTERNS: RegExp[] = [
  /-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)/g,
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{20,}/g,
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}/g,
  /(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}/g,
  /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /(?<![A-Za-z0-9_-])xox[a-z]-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Za-z0-9_-])xapp-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g,
  /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|imt|oas|ft|soat)-[0-9A-Za-z_-]{20,}/g,
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}/g,
  /(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{50,}/g,
  /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g,
  /(?<![A-Za-z0-9_])do[por]_v1_[a-f0-9]{64}/g,
  /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g,
  /(?<![A-Za-z0-9_])lin_(?:api|oauth)_[A-Za-z0-9]{32,}/g,
  /(?<![A-Za-z0-9_])(?:ntn|secret)_[A-Za-z0-9]{40,}/g,
  /(?<![A-Za-z0-9_-])figd_[A-Za-z0-9_-]{30,}/g,
  /(?<![A-Za-z0-9_.])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
  /(?<![A-Za-z0-9_])ATATT[A-Za-z0-9_=-]{20,}/g,
  /(?<![A-Za-z0-9_])pat[A-Za-z0-9]{14}\.[a-f0-9]{64}/g,
  // JSON Web Tokens (the signature may be empty: alg "none").
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
];

const AUTH_SCHEME = /(?<![A-Za-z0-9_-])(Bearer|Basic|Token|Bot)([ \t]+)([^\s"'`,;]+)/gi;
const FLAG_EQUALS = /(?<![A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9_.-]*)=([^\s"'`]*)/g;
const FLAG_SPACE = /(?<![A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9_.-]*)([ \t]+)("[^"]*"|'[^']*'|[^\s"'`-][^\s"'`]*)/g;
const NAME_EQUALS = /(?<![A-Za-z0-9_.$-])([A-Za-z_][A-Za-z0-9_.-]*)=([^\s"'`&;,]*)/g;
const NAME_COLON =
  /(?<![A-Za-z0-9_.$"-])([A-Za-z_][A-Za-z0-9_.-]*)(:[ \t]*)((?:Bearer|Basic|Token|Bot)[ \t]+)?([^\s"'`,;]+)/gi;
const JSON_PAIR = /"((?:[^"\\]|\\.){1,100})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

/** Runs of the characters tokens are made of (base64, base64url, hex), with base64 padding. */
const TEXT_RUN = /[A-Za-z0-9+/_-]+=*/g;
/** The same in a URL path segment, query item or fragment, where `/` separates. */
const SEGMENT_RUN = /[A-Za-z0-9+_-]+=*/g;
const WORD = /^[A-Z]*(?:[A-Z][a-z]+|[a-z]+)*[0-9]*$/;
const DIGEST_BEFORE = /(?:sha1|sha224|sha256|sha384|sha512|md5):$/i;
const HEX = /^[0-9a-fA-F]+$/;
const PATH_WORD = /^(?:\/|~(?:[/\\]|$)|\.{1,2}[/\\]|\\\\|[A-Za-z]:[/\\])/;
const WORD_DELIMITER = /[\s"'`=,;(){}<>]/;

/** Read as words: every piece between separators is a word (any case, camel case), optionally followed by digits. */
const readsAsWords = (run: string): boolean => run.split(/[/_+=.-]+/).every((piece) => WORD.test(piece));

function redactRuns(text: string, run: RegExp, paths: boolean): string {
  // Where the word holding each run starts, found in one pass (runs come in order): linear in the text's length.
  let scanned = 0;
  let wordStart = 0;
  return text.replace(run, (m: string, offset: number) => {
    for (; scanned < offset; scanned++) if (WORD_DELIMITER.test(text[scanned])) wordStart = scanned + 1;
    if (m.length < MIN_SECRET_LENGTH) return m;
    const before = text.slice(Math.max(0, offset - 8), offset);
    if (
      HEX.test(m) &&
      (DIGEST_BEFORE.test(before) || ((before.endsWith('@') || before.endsWith('#')) && m.length <= 64))
    )
      return m;
    if (paths && PATH_WORD.test(text.slice(wordStart, wordStart + 3))) return m;
    if (readsAsWords(m)) return m;
    return shannonEntropy(m) >= MIN_SECRET_ENTROPY ? REDACTED : m;
  });
}

/** Every rule but the URL ones, on text outside URLs (`inUrl` false) or on one piece of a URL. */
function redactPlain(text: string, inUrl: boolean): string {
  let out = text;
  for (const p of TOKEN_PATTERNS) out = out.replace(p, REDACTED);
  out = out.replace(AUTH_SCHEME, (m, scheme: string, space: string, value: string) =>
    kept(value) ? m : `${scheme}${space}${REDACTED}`,
  );
  out = out.replace(FLAG_EQUALS, (m, flag: string, value: string) =>
    isSecretName(flag) && !kept(value) ? `${flag}=${REDACTED}` : m,
  );
  if (!inUrl) {
    out = out.replace(FLAG_SPACE, (m, flag: string, space: string, value: string) =>
      isSecretName(flag) && !kept(value) ? `${flag}${space}${REDACTED}` : m,
    );
  }
  out = out.replace(NAME_EQUALS, (m, name: string, value: string) =>
    isSecretName(name) && !kept(value) ? `${name}=${REDACTED}` : m,
  );
  out = out.replace(NAME_COLON, (m, name: string, colon: string, scheme: string | undefined, value: string) =>
    isSecretName(name) && !kept(value) && !value.startsWith('//') ? `${name}${colon}${scheme ?? ''}${REDACTED}` : m,
  );
  out = out.replace(JSON_PAIR, (m, name: string, colon: string, value: string) =>
    isSecretName(name) && !kept(value) ? `"${name}"${colon}"${REDACTED}"` : m,
  );
  return redactRuns(out, inUrl ? SEGMENT_RUN : TEXT_RUN, !inUrl);
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `k=v&k2=v2`: every value redacted (kept: empty, a reference, the marker); an item without `=` by the other rules. */
function redactPairs(pairs: string): string {
  return pairs
    .split('&')
    .map((item) => {
      const eq = item.indexOf('=');
      if (eq < 0) return redactPlain(item, true);
      const value = item.slice(eq + 1);
      return kept(decoded(value)) ? item : `${redactPlain(item.slice(0, eq), true)}=${REDACTED}`;
    })
    .join('&');
}

const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s;

/** A URL (scheme://...): user info, query values and fragment values redacted; the path by the other rules. */
function redactUrlText(url: string): string {
  const m = URL_PARTS.exec(url);
  if (!m) return redactPlain(url, true);
  const [, scheme, authority, path, query, fragment] = m;
  let host = authority;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const refs = userinfo.split(':').every((part) => part === '' || isReference(decoded(part)));
    host = `${refs ? userinfo : REDACTED}@${authority.slice(at + 1)}`;
  }
  const redactedPath = path
    .split('/')
    .map((segment) => redactPlain(segment, true))
    .join('/');
  const redactedQuery = query === undefined ? '' : `?${redactPairs(query.slice(1))}`;
  let redactedFragment = '';
  if (fragment !== undefined) {
    const body = fragment.slice(1);
    redactedFragment = `#${body.includes('=') ? redactPairs(body) : redactPlain(body, true)}`;
  }
  return `${scheme}${host}${redactedPath}${redactedQuery}${redactedFragment}`;
}

const URL_IN_TEXT = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'`<>]*/g;

export interface RedactedText {
  text: string;
  /** Whether the result holds a redaction (made now, or already there). */
  redacted: boolean;
}

function redactOnce(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const start = m.index ?? 0;
    out += redactPlain(text.slice(last, start), false) + redactUrlText(m[0]);
    last = start + m[0].length;
  }
  return out + redactPlain(text.slice(last), false);
}

/**
 * Applies F until nothing changes. Every rule only replaces text that is not already the marker by the marker, so this
 * ends (in practice after one or two rounds: a redaction can expose a pair a rule had read differently, as in
 * `x:Token:y` once `x` is redacted); the bound is a guard, and what makes the result safe to redact again.
 */
function fixpoint<T>(value: T, f: (v: T) => T, same: (a: T, b: T) => boolean): T {
  let current = value;
  for (let i = 0; i < 64; i++) {
    const next = f(current);
    if (same(next, current)) return current;
    current = next;
  }
  return current;
}

/** Redacts secrets in TEXT (an argument, a URL, a command): see the rules at the top of this file. */
export function redactText(text: string): string {
  return fixpoint(text, redactOnce, (a, b) => a === b);
}

/** {@link redactText}, and whether the result holds a redaction. */
export function redact(text: string): RedactedText {
  const out = redactText(text);
  return { text: out, redacted: out.includes(REDACTED) };
}

/**
 * Redacts an argument list: the argument after a secret option (`--token`, `--api-key` ..., unless it is another
 * option or a reference), then every argument as text.
 */
export function redactArgs(args: readonly unknown[]): { args: string[]; redacted: boolean } {
  const once = (list: string[]): string[] => {
    const out = [...list];
    for (let i = 0; i + 1 < out.length; i++) {
      const next = out[i + 1];
      if (isSecretFlag(out[i]) && !next.startsWith('-') && !isReference(next) && next !== '') out[i + 1] = REDACTED;
    }
    return out.map(redactText);
  };
  const strings = args.map((a) => (typeof a === 'string' ? a : String(a)));
  const redacted = fixpoint(strings, once, (a, b) => a.length === b.length && a.every((x, i) => x === b[i]));
  return { args: redacted, redacted: redacted.some((a) => a.includes(REDACTED)) };
}

export interface NamedValues {
  /** Each name with its value if that is a reference (or empty), else `[REDACTED]`. */
  values: Record<string, string>;
  names: string[];
  /** The names whose value was a literal (not a `${...}` reference): each raises secret_in_config. */
  literal: string[];
}

function namedValues(input: unknown, reference: (v: string) => boolean): NamedValues {
  const values: Record<string, string> = {};
  const literal: string[] = [];
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { values, names: [], literal };
  for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
    if (typeof value === 'string' && (value === '' || reference(value))) {
      values[name] = value;
    } else {
      values[name] = REDACTED;
      literal.push(name);
    }
  }
  return { values, names: Object.keys(values), literal };
}

/** The environment of a server: names kept, literal values replaced (and listed), references kept. */
export const redactEnv = (env: unknown): NamedValues => namedValues(env, isReference);

/** The headers of a remote server: as {@link redactEnv}, where `Bearer ${...}` is a reference too. */
export const redactHeaders = (headers: unknown): NamedValues => namedValues(headers, isHeaderReference);

/** VALUE with a leading home directory written `~` (`/home/me/x` → `~/x`); on Windows, without case and either slash. */
export function homeToTilde(value: string, home: string | undefined): string {
  if (!home) return value;
  const h = home.replace(/[/\\]+$/, '');
  if (h === '') return value;
  const windows = /^[A-Za-z]:/.test(h) || h.includes('\\');
  const head = value.slice(0, h.length);
  const folded = (x: string) => x.toLowerCase().replace(/\//g, '\\');
  const same = windows ? folded(head) === folded(h) : head === h;
  if (!same) return value;
  const rest = value.slice(h.length);
  if (rest === '') return '~';
  return rest[0] === '/' || rest[0] === '\\' ? `~${rest}` : value;
}

/** A server as read from a configuration file or received by the service: only the fields redaction looks at. */
export interface ServerToRedact {
  name?: string;
  transport?: string;
  command?: string;
  args?: readonly unknown[];
  url?: string;
  env?: unknown;
  headers?: unknown;
}

export interface RedactedServer {
  name?: string;
  command?: string;
  args?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface ServerRedaction {
  server: RedactedServer;
  /** Whether the name, command, args or url hold a redaction. */
  redacted: boolean;
  literalEnv: string[];
  literalHeaders: string[];
  /** Any of the above: the server raises secret_in_config. */
  secretInConfig: boolean;
}

/**
 * A server with nothing secret left: name, command, args and url redacted (command and each argument with a leading
 * HOME written `~` first: the client passes its home, the service none), env and headers reduced to their names.
 * Fields absent from the input stay absent.
 */
export function redactServer(server: ServerToRedact, opts: { home?: string } = {}): ServerRedaction {
  const out: RedactedServer = {};
  let redacted = false;
  if (server.name !== undefined) {
    const r = redact(String(server.name));
    out.name = r.text;
    redacted ||= r.redacted;
  }
  if (server.command !== undefined) {
    const r = redact(homeToTilde(String(server.command), opts.home));
    out.command = r.text;
    redacted ||= r.redacted;
  }
  if (server.args !== undefined) {
    const r = redactArgs(server.args.map((a) => homeToTilde(typeof a === 'string' ? a : String(a), opts.home)));
    out.args = r.args;
    redacted ||= r.redacted;
  }
  if (server.url !== undefined) {
    const r = redact(String(server.url));
    out.url = r.text;
    redacted ||= r.redacted;
  }
  let literalEnv: string[] = [];
  let literalHeaders: string[] = [];
  if (server.env !== undefined) {
    const e = redactEnv(server.env);
    out.env = e.values;
    literalEnv = e.literal;
  }
  if (server.headers !== undefined) {
    const h = redactHeaders(server.headers);
    out.headers = h.values;
    literalHeaders = h.literal;
  }
  return {
    server: out,
    redacted,
    literalEnv,
    literalHeaders,
    secretInConfig: redacted || literalEnv.length > 0 || literalHeaders.length > 0,
  };
}
