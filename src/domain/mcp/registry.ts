// The organization's registry decision for a server: a deny entry matching the identity (and its
// version, when the entry lists versions) denies; otherwise an allow entry covering the identity and version allows;
// anything else is unreviewed. A version outside an entry's list, or unknown (null) against a list, is not covered.
// Denial is checked first: a server both allowed and denied (two versions' entries, say) is denied.

export interface RegistryRule {
  _id: string;
  identity: string;
  versions: readonly string[] | null;
  decision: 'allow' | 'deny';
}

export interface RegistryDecision {
  decision: 'allow' | 'deny' | 'unreviewed';
  /** The entry that decided (null: unreviewed). */
  entryId: string | null;
}

const covers = (rule: RegistryRule, identity: string, version: string | null): boolean =>
  rule.identity === identity && (rule.versions === null || (version !== null && rule.versions.includes(version)));

export function registryDecision(
  rules: readonly RegistryRule[],
  identity: string,
  version: string | null,
): RegistryDecision {
  const deny = rules.find((r) => r.decision === 'deny' && covers(r, identity, version));
  if (deny) return { decision: 'deny', entryId: deny._id };
  const allow = rules.find((r) => r.decision === 'allow' && covers(r, identity, version));
  if (allow) return { decision: 'allow', entryId: allow._id };
  return { decision: 'unreviewed', entryId: null };
}
