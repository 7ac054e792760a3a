// Threat intelligence on findings, alerts and advisories (docs/intelligence.md): the KEV badge, the EPSS figure, a CVSS
// vector with its score, and the links from a finding or an alert to its advisory's page and to where its package is
// used. Each badge reads without colour (its text, a border) and says itself in words to screen readers (visually
// hidden text) and on hover (title). Text only: every value from the API is a text node.
import {
  epssLabel,
  epssText,
  kevText,
  percentText,
  percentileWords,
  usageSearchOf,
  usageSearchToQuery,
} from '../intel';
import type { Epss, Kev } from '../intel';
import { paths } from '../paths';
import type { Ecosystem } from '../types';
import './intel.css';

/** "KEV", saying when CISA added it, the due date and ransomware use; nothing when the catalog has no entry. */
export function KevBadge({ kev }: { kev: Kev | null | undefined }) {
  if (!kev) return null;
  const words = kevText(kev);
  return (
    <span class="badge badge-kev" title={words}>
      KEV<span class="visually-hidden"> ({words})</span>
    </span>
  );
}

/** "EPSS 94.3%", with the percentile and the score date in words; nothing without a score. */
export function EpssBadge({ epss }: { epss: Epss | null | undefined }) {
  if (!epss) return null;
  return (
    <span class="badge badge-epss" title={epssText(epss)}>
      {epssLabel(epss)}
      <span class="visually-hidden">
        {' '}
        ({percentText(epss.score)} probability of exploitation in the next 30 days, {percentileWords(epss.percentile)};
        scores of {epss.date})
      </span>
    </span>
  );
}

/** Both badges of an alert or a finding (nothing when it has neither). */
export function IntelBadges({ kev, epss }: { kev: Kev | null | undefined; epss: Epss | null | undefined }) {
  if (!kev && !epss) return null;
  return (
    <span class="intel-badges">
      <KevBadge kev={kev} />
      <EpssBadge epss={epss} />
    </span>
  );
}

/** A page's KEV fact: the badge and its words, or that the catalog has no entry. */
export function KevFact({ kev }: { kev: Kev | null | undefined }) {
  if (!kev) return <span class="muted">not in CISA's KEV catalog</span>;
  return (
    <>
      <span class="badge badge-kev">KEV</span> {kevText(kev)}
    </>
  );
}

/** A page's EPSS fact: the figure and its words, or that there is no score. */
export function EpssFact({ epss }: { epss: Epss | null | undefined }) {
  if (!epss) return <span class="muted">no EPSS score</span>;
  return (
    <>
      <span class="badge badge-epss">{epssLabel(epss)}</span>: the probability of exploitation in the next 30 days;{' '}
      {percentileWords(epss.percentile)} (scores of {epss.date})
    </>
  );
}

/** A CVSS vector with its base score and version ("9.8 (CVSS 3.1) CVSS:3.1/AV:N/…"). */
export function CvssVector({ cvss }: { cvss: { version: string; vector: string; score: number } }) {
  return (
    <>
      {cvss.score.toFixed(1)} <span class="muted">(CVSS {cvss.version})</span>{' '}
      <code class="cvss-vector">{cvss.vector}</code>
    </>
  );
}

/**
 * The links of a finding's or an alert's page across the organization: its advisory's page (every project it
 * affects) and where its package is used (with the version when there is one).
 */
export function AcrossProjects({
  advisory,
  pkg,
  version,
  ecosystem,
}: {
  advisory: string;
  pkg: string;
  version?: string;
  ecosystem?: Ecosystem;
}) {
  return (
    <ul class="inline-links">
      <li>
        <a href={paths.advisory(advisory)}>The advisory {advisory} and every project it affects</a>
      </li>
      <li>
        <a href={paths.whereUsed(usageSearchToQuery(usageSearchOf(pkg, version, ecosystem)))}>
          Where {version ? `${pkg}@${version}` : pkg} is used
        </a>
      </li>
    </ul>
  );
}
