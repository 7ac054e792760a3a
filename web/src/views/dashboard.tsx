// The home page: the organization's portfolio at a glance. Its first screen is three reads started together (the
// trend, GET /v1/metrics/alerts; the live counts, GET /v1/metrics/portfolio; the riskiest open alerts, GET
// /v1/alerts?sort=risk&limit=10), each section shown as its own read answers:
//   - a search box: an advisory id opens its advisory, a project's name the project, anything else where a package of
//     that name is used (said in its hint);
//   - the open alerts by severity and the known exploited ones (KEV), each a link to those alerts; a zero is muted,
//     never coloured as a count;
//   - the 90 days' trend (components/trend-chart.tsx), with the mean time to fix by severity;
//   - the riskiest open alerts, each a link to its page;
//   - the open alerts by team and by project, tables sorted by any column's header, each project saying in words
//     whether it is out of date (no tracked scan in the last 30 days).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api } from '../api';
import { errorText } from '../components/admin/common';
import { SeverityBadge, When } from '../components/bits';
import { IntelBadges } from '../components/intel';
import { ListTable, useSorted } from '../components/list';
import { Page, Status } from '../components/page';
import { TrendChart } from '../components/trend-chart';
import { takeHomeRead, TOP_ALERTS } from '../home-reads';
import { useLoad } from '../hooks';
import {
  daysText,
  freshnessText,
  NO_TEAM,
  OUT_OF_DATE_DAYS,
  searchTarget,
  type AlertTrend,
  type Portfolio,
  type PortfolioProject,
  type PortfolioTeam,
} from '../metrics';
import { paths } from '../paths';
import type { AlertList, Project, Severity, SeverityCounts } from '../types';
import { SEVERITIES } from '../types';

const TOP = TOP_ALERTS;
/** Projects shown before "Show every project": the first screen stays short in a large organization. */
const PROJECT_ROWS = 50;
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

function HomeSearch({ projects }: { projects: PortfolioProject[] | undefined }) {
  const { route } = useLocation();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="filters home-search"
      role="search"
      aria-label="Find an advisory, a package or a project"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          // the portfolio names the projects; before it answers (or when it failed), the projects list does
          const named =
            projects ??
            (await allPages<Project>('/projects', 'projects')).map((p) => ({ project: p.id, slug: p.slug }));
          const to = searchTarget(value, named);
          if (to) route(to.href);
        } catch (err) {
          setError(errorText(err));
        }
      }}
    >
      <div class="field">
        <label for="home-q">Advisory, package or project</label>
        <input
          id="home-q"
          type="search"
          required
          maxLength={512}
          autoComplete="off"
          spellcheck={false}
          aria-describedby="home-q-hint"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Go</button>
      <p id="home-q-hint" class="muted search-hint">
        An advisory id (<code>GHSA-…</code>, <code>CVE-…</code>, <code>PYSEC-…</code> or another OSV id) opens the
        advisory and the projects it affects; a project's name, exactly, opens the project; anything else lists where a
        package of that name is used.
      </p>
      {error ? (
        <p role="alert" class="error search-hint">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** One count of the open alerts: a link to them, or a muted zero (nothing to open). */
function Tile({ n, label, cls, href }: { n: number; label: string; cls: string; href: string }) {
  const body = (
    <>
      <span class="tile-n">{n}</span> <span class="tile-label">{label}</span>
    </>
  );
  return <li class={`tile ${n ? cls : 'tile-zero'}`}>{n ? <a href={href}>{body}</a> : body}</li>;
}

function OpenCounts({ p }: { p: Portfolio }) {
  return (
    <>
      <ul class="tiles" aria-label="Open alerts by severity, and known exploited">
        {SEVERITIES.map((s) => (
          <Tile
            key={s}
            n={p.open[s]}
            label={s}
            cls={`sev-${s}`}
            href={paths.orgAlerts({ severity: s, severityMode: 'exact' })}
          />
        ))}
        <Tile n={p.kev} label="known exploited (KEV)" cls="tile-kev" href={paths.orgAlerts({ kev: 'true' })} />
      </ul>
      <p class="muted">
        Open alerts that are not suppressed; {p.suppressed} suppressed {p.suppressed === 1 ? 'alert is' : 'alerts are'}{' '}
        not counted. <a href={paths.orgAlerts()}>Every open alert</a>
      </p>
    </>
  );
}

/** A count in a table cell: a zero muted, as nothing to see. */
const Count = ({ n }: { n: number }) => <span class={n ? 'count' : 'count count-zero'}>{n}</span>;

const countKeys = <T extends { open: SeverityCounts; kev: number }>() => [
  ...SEVERITIES.map((s: Severity) => (r: T) => r.open[s]),
  (r: T) => r.kev,
];

function TeamTable({ teams }: { teams: PortfolioTeam[] }) {
  const { rows, sort } = useSorted<PortfolioTeam>(teams, [
    (t) => t.team,
    ...countKeys<PortfolioTeam>(),
    (t) => t.projects,
  ]);
  return (
    <ListTable caption="Open alerts by team" columns={['Team', ...SEVERITIES.map(cap), 'KEV', 'Projects']} sort={sort}>
      {rows.map((t) => (
        <tr key={t.team}>
          <th scope="row" class="cell-wrap">
            {t.team === NO_TEAM ? (
              <span class="muted">no team ({NO_TEAM})</span>
            ) : (
              <a href={paths.orgAlerts({ team: t.team })}>{t.team}</a>
            )}
          </th>
          {SEVERITIES.map((s) => (
            <td key={s}>
              <Count n={t.open[s]} />
            </td>
          ))}
          <td>
            <Count n={t.kev} />
          </td>
          <td>{t.projects}</td>
        </tr>
      ))}
    </ListTable>
  );
}

function ProjectTable({ projects }: { projects: PortfolioProject[] }) {
  const [all, setAll] = useState(false);
  const { rows, sort } = useSorted<PortfolioProject>(projects, [
    (p) => p.slug,
    ...countKeys<PortfolioProject>(),
    (p) => time(p.lastTrackedScanAt),
    // up to date first, then out of date, then never scanned
    (p) => (p.outOfDate ? (p.lastTrackedScanAt ? 1 : 2) : 0),
  ]);
  const stale = projects.filter((p) => p.outOfDate).length;
  const shown = all ? rows : rows.slice(0, PROJECT_ROWS);
  return (
    <>
      <p>
        {stale
          ? `${stale} of ${projects.length} ${projects.length === 1 ? 'project is' : 'projects are'} out of date: no tracked scan in the last ${OUT_OF_DATE_DAYS} days, so ${stale === 1 ? 'its' : 'their'} counts may be old.`
          : `Every project had a tracked scan in the last ${OUT_OF_DATE_DAYS} days.`}
      </p>
      <ListTable
        caption="Open alerts by project"
        columns={['Project', ...SEVERITIES.map(cap), 'KEV', 'Last tracked scan', 'Freshness']}
        sort={sort}
      >
        {shown.map((p) => (
          <tr key={p.project}>
            <th scope="row" class="cell-wrap">
              <a href={paths.project(p.project)}>{p.slug}</a>
            </th>
            {SEVERITIES.map((s) => (
              <td key={s}>
                <Count n={p.open[s]} />
              </td>
            ))}
            <td>
              <Count n={p.kev} />
            </td>
            <td>
              <When iso={p.lastTrackedScanAt} />
            </td>
            <td class={p.outOfDate ? 'stale' : 'muted'}>{freshnessText(p)}</td>
          </tr>
        ))}
      </ListTable>
      {rows.length > shown.length ? (
        <button type="button" onClick={() => setAll(true)}>
          Show every project ({rows.length})
        </button>
      ) : null}
    </>
  );
}

export default function Dashboard() {
  // the first screen: three reads, started together
  // (started at the page's load when it opened here: web/src/home-reads.ts)
  const trend = useLoad(
    (signal) => takeHomeRead<AlertTrend>('trend') ?? api.get<AlertTrend>('/metrics/alerts', undefined, signal),
    [],
  );
  const portfolio = useLoad(
    (signal) => takeHomeRead<Portfolio>('portfolio') ?? api.get<Portfolio>('/metrics/portfolio', undefined, signal),
    [],
  );
  const top = useLoad(
    (signal) => takeHomeRead<AlertList>('top') ?? api.get<AlertList>('/alerts', { sort: 'risk', limit: TOP }, signal),
    [],
  );
  const slugs = useMemo(
    () => new Map((portfolio.data?.projects ?? []).map((p) => [p.project, p.slug])),
    [portfolio.data],
  );
  const p = portfolio.data;
  const t = trend.data;
  const none = p && !p.projects.length;
  // `performance.mark('dashboard:first-screen')` once the three reads are shown (npm run bench -- portfolio reads it)
  const shown = Boolean(p && t && top.data);
  useEffect(() => {
    if (shown && !performance.getEntriesByName('dashboard:first-screen').length)
      performance.mark('dashboard:first-screen');
  }, [shown]);

  return (
    <Page title="Dashboard">
      <HomeSearch projects={p?.projects} />
      <section class="dash-section" aria-labelledby="d-open">
        <h2 id="d-open">Open alerts</h2>
        <Status loading={portfolio.loading && !p} error={portfolio.error ? errorText(portfolio.error) : undefined} />
        {p ? <OpenCounts p={p} /> : null}
        {none ? <p>No project yet: upload a snapshot with the CI client to create one.</p> : null}
      </section>
      <section class="dash-section" aria-labelledby="d-trend">
        <h2 id="d-trend">Open alerts over {t ? `${t.points.length} days` : 'time'}</h2>
        <Status loading={trend.loading && !t} error={trend.error ? errorText(trend.error) : undefined} />
        {t ? (
          <>
            <TrendChart trend={t} />
            <p class="muted">
              Mean time to fix, over these days:{' '}
              {SEVERITIES.map((s) => `${s} ${daysText(t.meanTimeToFixDays[s])}`).join(', ')}.
            </p>
          </>
        ) : null}
      </section>
      <section class="dash-section" aria-labelledby="d-top">
        <h2 id="d-top">Riskiest open alerts</h2>
        <Status loading={top.loading && !top.data} error={top.error ? errorText(top.error) : undefined} />
        {top.data && !top.data.alerts.length ? <p>No open alert.</p> : null}
        {top.data?.alerts.length ? (
          <>
            <ListTable
              caption={`The ${top.data.alerts.length} riskiest open alerts: known exploited first, then severity, EPSS and CVSS`}
              columns={['Advisory', 'Project', 'Severity', 'Exploitation', 'Package']}
            >
              {top.data.alerts.map((a) => (
                <tr key={a.id}>
                  <th scope="row" class="cell-wrap">
                    <a href={paths.alert(a.id)}>{a.advisory}</a>
                  </th>
                  <td class="cell-wrap">
                    <a href={paths.project(a.project)}>{slugs.get(a.project) ?? a.project}</a>
                  </td>
                  <td>
                    <SeverityBadge severity={a.severity} />
                  </td>
                  <td>
                    {a.kev || a.epss ? (
                      <IntelBadges kev={a.kev} epss={a.epss} />
                    ) : (
                      <span class="muted">none known</span>
                    )}
                  </td>
                  <td class="cell-wrap">
                    {a.package}
                    <div class="muted">
                      {a.installedVersions.join(', ')} · {a.ecosystem}
                    </div>
                  </td>
                </tr>
              ))}
            </ListTable>
            <p>
              <a href={paths.orgAlerts()}>Every open alert, riskiest first</a>
            </p>
          </>
        ) : null}
      </section>
      {p?.teams.length ? (
        <section class="dash-section" aria-labelledby="d-teams">
          <h2 id="d-teams">Open alerts by team</h2>
          <TeamTable teams={p.teams} />
        </section>
      ) : null}
      {p?.projects.length ? (
        <section class="dash-section" aria-labelledby="d-projects">
          <h2 id="d-projects">Open alerts by project</h2>
          <ProjectTable projects={p.projects} />
        </section>
      ) : null}
    </Page>
  );
}
