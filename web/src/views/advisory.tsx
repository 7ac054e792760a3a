// One advisory (GET /v1/advisories/{id}, by any id of its alias group): its id and aliases (each linked to where it is
// published), summary, details (as text: the advisory's Markdown is never rendered), severity, every CVSS vector, KEV
// and EPSS, when it was published and modified (or withdrawn), the packages and ranges it affects (each a link to
// where that package is used), its references (http and https addresses only are links, opening a new tab without
// opener or referrer), and the organization's open alerts of it by project, with their packages, versions and teams,
// read a page of projects at a time ("More projects"). An id no advisory has and no alert names is the not-found view.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api';
import { errorText } from '../components/admin/common';
import { AdvisoryLinks, SeverityBadge, When } from '../components/bits';
import { CvssVector, EpssFact, KevFact } from '../components/intel';
import { ListTable, MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { usePages } from '../hooks';
import { rangeText, webUrl } from '../intel';
import { paths } from '../paths';
import type { AdvisoryDetail, AdvisoryPage, AdvisoryProject } from '../types';
import { NotFoundView } from './not-found';

/** Versions listed one by one: the first ones, then how many more (an advisory may list hundreds). */
const LISTED = 12;

function Versions({ versions }: { versions: string[] | undefined }) {
  if (!versions?.length) return <span class="muted">none listed</span>;
  const shown = versions.slice(0, LISTED).join(', ');
  return (
    <>
      {shown}
      {versions.length > LISTED ? <span class="muted"> and {versions.length - LISTED} more</span> : null}
    </>
  );
}

function Facts({ a }: { a: AdvisoryDetail }) {
  return (
    <dl class="facts">
      <dt>Summary</dt>
      <dd>{a.summary || 'none'}</dd>
      <dt>Advisory</dt>
      <dd>
        <AdvisoryLinks id={a.id} />
      </dd>
      <dt>Aliases</dt>
      <dd>
        {a.aliases.length
          ? a.aliases.map((x, i) => (
              <span key={x}>
                {i ? ', ' : ''}
                <AdvisoryLinks id={x} />
              </span>
            ))
          : 'none'}
      </dd>
      <dt>Severity</dt>
      <dd>
        <SeverityBadge severity={a.severity} />
      </dd>
      <dt>CVSS</dt>
      <dd>
        {a.cvss.length ? (
          <ul class="cvss-list">
            {a.cvss.map((c) => (
              <li key={c.vector}>
                <CvssVector cvss={c} />
              </li>
            ))}
          </ul>
        ) : (
          <span class="muted">no CVSS vector</span>
        )}
      </dd>
      <dt>Known exploited</dt>
      <dd>
        <KevFact kev={a.kev} />
      </dd>
      <dt>EPSS</dt>
      <dd>
        <EpssFact epss={a.epss} />
      </dd>
      <dt>Published</dt>
      <dd>
        <When iso={a.published} />
      </dd>
      <dt>Modified</dt>
      <dd>
        <When iso={a.modified} />
      </dd>
    </dl>
  );
}

function Affected({ a }: { a: AdvisoryDetail }) {
  if (!a.affected.length)
    return (
      <p class="muted">
        No affected package is listed: the advisory database no longer holds this advisory, and it is shown as the
        organization's alerts remember it.
      </p>
    );
  return (
    <ListTable
      caption={`Packages ${a.id} affects`}
      columns={['Package', 'Ecosystem', 'Affected ranges', 'Versions listed']}
    >
      {a.affected.map((x, i) => (
        <tr key={`${x.ecosystem} ${x.name} ${i}`}>
          <th scope="row" class="cell-wrap">
            {x.name}
            <div>
              <a href={paths.whereUsed({ name: x.name })} aria-label={`Where used: ${x.name}`}>
                Where used
              </a>
            </div>
          </th>
          <td>{x.ecosystem}</td>
          <td class="cell-wrap">
            {x.ranges.length ? (
              x.ranges.map((r, j) => <div key={j}>{rangeText(r)}</div>)
            ) : (
              <span class="muted">no range</span>
            )}
          </td>
          <td class="cell-wrap">
            <Versions versions={x.versions} />
          </td>
        </tr>
      ))}
    </ListTable>
  );
}

function References({ a }: { a: AdvisoryDetail }) {
  if (!a.references.length) return <p class="muted">None.</p>;
  return (
    <ul class="references">
      {a.references.map((r, i) => {
        const href = webUrl(r.url);
        return (
          <li key={i}>
            <span class="muted">{r.type}</span>{' '}
            {href ? (
              <a href={href} rel="noopener noreferrer" target="_blank">
                {r.url}
                <span class="visually-hidden"> (opens a new tab)</span>
              </a>
            ) : (
              <>
                {r.url} <span class="muted">(not a web address: not linked)</span>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export default function AdvisoryView() {
  const { params } = useRoute();
  const { url } = useLocation();
  const id = params.advisoryId;
  // the advisory as the first page of its projects answered it (every page carries it)
  const [detail, setDetail] = useState<{ of: string; advisory: AdvisoryDetail } | null>(null);
  const pages = usePages<AdvisoryProject>(id, async (cursor, signal) => {
    const p = await api.get<AdvisoryPage>(`/advisories/${encodeURIComponent(id)}`, { limit: 50, cursor }, signal);
    if (!signal.aborted) setDetail({ of: id, advisory: p.advisory });
    return { items: p.projects, nextCursor: p.nextCursor };
  });
  const a = detail?.of === id ? detail.advisory : undefined;
  const alerts = pages.items.reduce((n, g) => n + g.alerts.length, 0);
  const ready = !!a && pages.loaded && !pages.loading;

  if (pages.error instanceof ApiError && pages.error.status === 404 && !a)
    return (
      <NotFoundView title="Advisory not found">
        No advisory <code>{id}</code>: the imported advisories have no such id, and no alert of this organization names
        it.
      </NotFoundView>
    );
  return (
    <Page title={a ? `Advisory ${a.id}` : 'Advisory'}>
      <Status loading={pages.loading && !a} error={pages.error && !a ? errorText(pages.error) : undefined} />
      {a && a.id.toUpperCase() !== id.toUpperCase() ? (
        <p class="notice" role="note">
          <code>{id}</code> is another id of this advisory: it is shown by its own id, <code>{a.id}</code>.
        </p>
      ) : null}
      {a?.withdrawn ? (
        <p class="notice" role="note">
          Withdrawn <When iso={a.withdrawn} />: the advisory database no longer stands by it.
        </p>
      ) : null}
      {a ? (
        <>
          <Facts a={a} />
          <h2>Details</h2>
          {a.details ? <p class="advisory-details">{a.details}</p> : <p class="muted">No details.</p>}
          <h2>Affected packages</h2>
          <Affected a={a} />
          <h2>References</h2>
          <References a={a} />
          <h2 id="advisory-projects">Open alerts in this organization</h2>
          <p
            role="status"
            aria-live="polite"
            class="list-counts"
            data-ready-url={ready ? url.split('#')[0] : undefined}
          >
            {pages.loaded && (!pages.loading || pages.cursor)
              ? pages.items.length
                ? `${plural(pages.items.length, 'project', 'projects')} with ${plural(alerts, 'open alert', 'open alerts')}${pages.next ? ' loaded so far' : ''}`
                : 'No project of this organization has an open alert of it (fixed alerts are not listed).'
              : 'Loading the projects…'}
          </p>
          <Status error={pages.error ? errorText(pages.error) : undefined} />
          {pages.items.length ? (
            <ListTable
              caption={`Open alerts of ${a.id}, by project`}
              columns={['Project', 'Package', 'Installed versions', 'Severity', 'Teams', 'Alert']}
            >
              {pages.items.flatMap((g) =>
                g.alerts.map((x) => (
                  <tr key={x.id}>
                    <th scope="row" class="cell-wrap">
                      <a href={paths.project(g.project)}>{g.projectSlug}</a>
                      <div class="muted">{plural(g.openAlerts, 'open alert', 'open alerts')}</div>
                    </th>
                    <td class="cell-wrap">
                      {x.package} <span class="muted">({x.ecosystem})</span>
                    </td>
                    <td class="cell-wrap">
                      {x.installedVersions.join(', ') || <span class="muted">none recorded</span>}
                    </td>
                    <td>
                      <SeverityBadge severity={x.severity} />
                    </td>
                    <td class="cell-wrap">
                      {x.teams.length ? x.teams.join(', ') : <span class="muted">no team</span>}
                    </td>
                    <td>
                      <a href={paths.alert(x.id)}>
                        Alert
                        <span class="visually-hidden">
                          {' '}
                          of {x.package} in {g.projectSlug}
                        </span>
                      </a>
                      {x.suppressed ? <div class="muted">suppressed</div> : null}
                    </td>
                  </tr>
                )),
              )}
            </ListTable>
          ) : null}
          <MoreButton pages={pages} label="More projects" />
        </>
      ) : null}
    </Page>
  );
}
