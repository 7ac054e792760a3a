// PyPI: PEP 440 versions, parsed and normalised by @renovatebot/pep440 (`explain`), ordered by PEP 440's sort key
// (the one `packaging` uses: epoch, release without trailing zeros, pre, post, dev, local), computed once per
// version so that a comparison is cheap. Legacy versions that PEP 440 rejects ("2004d", "1.0-dev-r2") still occur on
// PyPI: like packaging's old LegacyVersion they sort before every valid version, and among themselves by their
// digit and letter runs. Names are compared per PEP 503.
import { explain } from '@renovatebot/pep440';
import { pypiName } from '../../../shared/package-names';
import type { EcosystemRules } from './rules';

type Key = unknown[] | number | string;
interface PypiVersion {
  legacy: boolean;
  key: Key;
}

/** Python tuple comparison with ±Infinity sentinels, as packaging's sort key needs. */
function pyCompare(a: Key, b: Key): number {
  if (a === b) return 0;
  if (Array.isArray(a) !== Array.isArray(b)) {
    a = Array.isArray(a) ? a : [a];
    b = Array.isArray(b) ? b : [b];
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = pyCompare(a[i] as Key, b[i] as Key);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a === -Infinity || b === Infinity) return -1;
  if (a === Infinity || b === -Infinity) return 1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

function pep440Key(v: NonNullable<ReturnType<typeof explain>>): Key {
  const release = [...v.release];
  while (release.length && release[release.length - 1] === 0) release.pop();
  let pre: Key = v.pre ?? null!;
  if (!v.pre && !v.post && v.dev !== null) pre = -Infinity;
  else if (!v.pre) pre = Infinity;
  const post: Key = v.post ?? -Infinity;
  const dev: Key = v.dev ?? Infinity;
  const local: Key = v.local
    ? String(v.local)
        .split(/[._-]/)
        .map((p) => (/^\d+$/.test(p) ? [Number(p), ''] : [-Infinity, p]))
    : -Infinity;
  return [v.epoch, release, pre, post, dev, local];
}

/** Legacy order: runs of digits (numerically) and of letters; letters before digits, as setuptools had it. */
function legacyKey(version: string): Key {
  return (version.toLowerCase().match(/\d+|[a-z]+/g) ?? []).map((t) => (/^\d/.test(t) ? [1, Number(t)] : [0, t]));
}

export const pypiRules: EcosystemRules = {
  osvEcosystem: 'PyPI',
  normalizeName: pypiName,
  parse(version) {
    const text = version.trim();
    if (!text) return null;
    const v = explain(text);
    return (v ? { legacy: false, key: pep440Key(v) } : { legacy: true, key: legacyKey(text) }) satisfies PypiVersion;
  },
  parseBound: (version) => pypiRules.parse(version),
  compare(a, b) {
    const x = a as PypiVersion;
    const y = b as PypiVersion;
    if (x.legacy !== y.legacy) return x.legacy ? -1 : 1;
    return pyCompare(x.key, y.key);
  },
};
