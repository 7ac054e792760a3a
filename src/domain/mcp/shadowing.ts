// tool_shadowing: a tool's description names a tool of ANOTHER server configured on the same host and
// client, the way a poisoned server steers the model towards (or against) a trusted server's tool. Three forms:
// - `server.tool` and `server__tool` (the `mcp__server__tool` names agents give tools contain the latter), server
//   names compared without regard to case;
// - the tool's name as a whole word (bounded by anything but letters, digits, `_` and `-`), when the name has 4 or
//   more characters, compared with its case (tool names are identifiers). A name the describing server has as a
//   tool of its own is not counted as a bare word: a server describing its own `search` does not shadow another's.

export interface PeerServer {
  /** The server's name in the configuration (the key agents prefix its tools with). */
  name: string;
  tools: readonly string[];
}

export interface Shadowed {
  server: string;
  tool: string;
  form: 'qualified' | 'word';
}

export const MIN_SHADOW_WORD = 4;

const WORD = /[A-Za-z0-9_-]+/g;
const WORD_NAME = /^[A-Za-z0-9_-]+$/;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words of TEXTS, for whole-word lookups of tool names made of word characters. */
export function wordsOf(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(WORD)) out.add(m[0]);
  return out;
}

/**
 * The peers' tools that TEXTS name. OWN: the describing server's own tool names. PEERS: the other servers of the same
 * host and client (never the describing server itself).
 */
export function shadowedTools(
  texts: readonly string[],
  own: ReadonlySet<string>,
  peers: readonly PeerServer[],
): Shadowed[] {
  if (texts.length === 0) return [];
  const lower = texts.map((t) => t.toLowerCase());
  let words: Set<string> | undefined;
  const out: Shadowed[] = [];
  for (const peer of peers) {
    const server = peer.name.toLowerCase();
    for (const tool of peer.tools) {
      if (tool === '') continue;
      const t = tool.toLowerCase();
      if (server !== '' && lower.some((x) => x.includes(`${server}.${t}`) || x.includes(`${server}__${t}`))) {
        out.push({ server: peer.name, tool, form: 'qualified' });
        continue;
      }
      if ([...tool].length < MIN_SHADOW_WORD || own.has(tool)) continue;
      let named: boolean;
      if (WORD_NAME.test(tool)) named = (words ??= wordsOf(texts)).has(tool);
      else {
        const r = new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(tool)}(?![A-Za-z0-9_-])`);
        named = texts.some((x) => r.test(x));
      }
      if (named) out.push({ server: peer.name, tool, form: 'word' });
    }
  }
  return out;
}
