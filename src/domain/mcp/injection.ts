// prompt_injection_suspected: documented heuristics over the text a model reads about a tool (its
// description, and every key and string of its inputSchema, where parameter descriptions live). Each rule is one row
// of INJECTION_RULES; a tool is suspected when any row matches. Heuristics: they aim at the known tool-poisoning
// patterns (instructions aimed at the model rather than at the user, text the user cannot see, requests for
// credentials), and a legitimate description can trip one, which is why the issue says "suspected".

export interface InjectionRule {
  id: string;
  /** What the rule looks for, as reported in the issue's details. */
  description: string;
  test(text: string): boolean;
}

const re = (r: RegExp) => (text: string) => r.test(text);

export const INJECTION_RULES: readonly InjectionRule[] = [
  // "Ignore previous instructions" and its variants: text that tries to override what the model was told before.
  {
    id: 'override_instructions',
    description: 'asks the model to ignore, disregard or override earlier instructions',
    test: re(
      /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|all|any|other|system|original)\b[^.\n]{0,20}?\b(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|messages?)\b/i,
    ),
  },
  // Concealment: a tool has no reason to keep something from the user ("do not tell the user", "without informing
  // the user", "don't mention this").
  {
    id: 'conceal_from_user',
    description: 'asks the model to hide something from the user',
    test: re(
      /\b(?:do not|don't|dont|never|without)\s+(?:\w+\s+){0,3}?(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|show|showing|notify|notifying|alert|alerting|disclose|disclosing)\b[^.\n]{0,40}?\b(?:the\s+)?user\b|\b(?:do not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:this|that|these|it)\b/i,
    ),
  },
  // <IMPORTANT>, <system>, <instructions> ... tags (and [SYSTEM]/[INST] markers): the layout of the published
  // tool-poisoning attacks, framing text as a privileged message to the model.
  {
    id: 'directive_tag',
    description: 'an <IMPORTANT>-, <system>- or <instructions>-style tag or [SYSTEM]/[INST] marker',
    test: re(
      /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin|assistant|critical|prompt)\b[^>]{0,40}>|\[\s*\/?\s*(?:system|inst|important)\s*\]/i,
    ),
  },
  // Imperatives addressed to the model: "you must", "you are required to", "the assistant must", "before using this
  // tool, ...". A tool's documentation describes the tool; it does not order the reader around.
  {
    id: 'model_directive',
    description: 'an imperative addressed to the model ("you must", "the assistant must", "before using any tool")',
    test: re(
      /\byou\s+(?:must|shall|are\s+required\s+to|have\s+to|need\s+to|should\s+always)\b|\b(?:the\s+)?(?:assistant|model|ai|llm|agent)\s+(?:must|shall|should\s+always|is\s+required\s+to)\b|\bbefore\s+(?:using|calling|invoking)\s+(?:this|any|the)\s+(?:other\s+)?tools?\b/i,
    ),
  },
  // Characters the user does not see but the model reads: zero-width spaces and joiners, word joiner and invisible
  // operators, the byte-order mark, soft hyphen, bidirectional controls (Trojan Source) and Unicode tag characters
  // (U+E0000..U+E007F, "ASCII smuggling").
  {
    id: 'hidden_characters',
    description: 'zero-width, bidirectional-control, invisible or Unicode tag characters',
    test: re(/[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F]/),
  },
  // Paths of credentials and keys: SSH keys, .env files, cloud and registry credential files.
  {
    id: 'credential_files',
    description: 'names a credential or key file (~/.ssh, id_rsa, .env, .aws/credentials, .npmrc, .netrc, ...)',
    test: re(
      /~\/\.ssh\b|\.ssh\/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[\s'"`(/=:])\.env(?:\.[A-Za-z]+)?\b|\.aws\/credentials|\.npmrc\b|\.pypirc\b|\.netrc\b|\.pgpass\b|\.git-credentials\b|\.kube\/config\b|\.docker\/config\.json|\bknown_hosts\b|\bauthorized_keys\b/i,
    ),
  },
  // Requests to read, pass or send credentials ("read the API key", "include your access token in the notes
  // parameter"): a tool's own credentials come from its configuration, never from the conversation.
  {
    id: 'credential_request',
    description: 'asks to read, include or send API keys, tokens, passwords or private keys',
    test: re(
      /\b(?:read|send|include|pass|provide|upload|share|exfiltrate|copy|cat|print|output|leak|forward|attach|append|extract|collect|retrieve)\b[^.\n]{0,60}?\b(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer\s+tokens?|secret[\s_-]?keys?|private[\s_-]?keys?|passwords?|credentials?|session\s+cookies?|ssh\s+keys?)\b/i,
    ),
  },
];

/** The texts of a tool a model reads: its description, and every key and string of its inputSchema. */
export function toolTexts(tool: { description?: string | null; inputSchema?: unknown }): string[] {
  const out: string[] = [];
  if (typeof tool.description === 'string' && tool.description !== '') out.push(tool.description);
  // An explicit stack: a schema nested thousands deep must not overflow the call stack.
  const stack: unknown[] = [tool.inputSchema];
  let seen = 0;
  while (stack.length > 0 && seen < 100_000) {
    const v = stack.pop();
    seen++;
    if (typeof v === 'string') {
      if (v !== '') out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        out.push(k);
        stack.push(x);
      }
    }
  }
  return out;
}

/** The ids of the rules a tool's texts trip, in table order (empty: not suspected). */
export function injectionRules(tool: { description?: string | null; inputSchema?: unknown }): string[] {
  const texts = toolTexts(tool);
  return INJECTION_RULES.filter((rule) => texts.some((t) => rule.test(t))).map((rule) => rule.id);
}
