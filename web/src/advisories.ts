// Advisory ids as links to where they are published. Pure: tested in test/browser/web-logic.test.ts.

/** Where an advisory id is published: GitHub for GHSA, NVD for CVE, and OSV for every id it serves. */
export function advisoryLinks(id: string): { label: string; href: string }[] {
  const out: { label: string; href: string }[] = [];
  const enc = encodeURIComponent(id);
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(id))
    out.push({ label: 'GitHub', href: `https://github.com/advisories/${enc}` });
  if (/^CVE-\d{4}-\d{4,}$/.test(id)) out.push({ label: 'NVD', href: `https://nvd.nist.gov/vuln/detail/${enc}` });
  if (/^(GHSA|CVE|PYSEC|GO|RUSTSEC|OSV|MAL)-[\w.-]+$/.test(id))
    out.push({ label: 'OSV', href: `https://osv.dev/vulnerability/${enc}` });
  return out;
}
