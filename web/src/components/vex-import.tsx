// The import of a VEX document into a project's alerts (POST /v1/projects/{projectId}/vex): a CycloneDX 1.4-1.6 VEX or
// OpenVEX 0.2 file chosen from the disk is sent as it is (its own bytes, so that the API's size limit and its JSON
// parse are the file's), and the API's report is shown: how many alerts the document decided and how many of them it
// changed, a table of those alerts, a table of the statements it did not apply with the API's reason. An alert that a
// person has decided keeps that analysis unless the overwrite box is ticked. A refusal (not JSON, not VEX, too large,
// not allowed) is said in words at the file's input. Only roles that triage see the form (roles.ts). Text only: every
// value from the API and the document is a text node.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, url } from '../api';
import { paths } from '../paths';
import { canTriage } from '../roles';
import { useMe } from '../session';
import { STATE_LABELS } from '../triage';
import type { components } from '../api-types.gen';
import { errorText, Outcome } from './admin/common';
import { ListTable } from './list';
import { errorAria } from './triage-form';
import './triage.css';

/** The largest document the API takes (larger: 413). */
export const VEX_IMPORT_MAX_MB = 5;

/**
 * The API's answer (POST /v1/projects/{projectId}/vex, 200), as the OpenAPI document describes it: the alerts decided
 * (`statement`: the statement's index in the document, from 0; `versions`: null for every installed version) and the
 * statements not applied, with the API's code and reason.
 */
export type VexImportResult = components['schemas']['VexImportResult'];

const FORMAT_LABELS: Record<VexImportResult['format'], string> = {
  cyclonedx: 'CycloneDX',
  openvex: 'OpenVEX',
};

/** The most rows each table shows (a document may hold thousands of statements): the rest are counted. */
const ROWS_SHOWN = 500;

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The report in one sentence: "Imported the OpenVEX 0.2.0 document (2 statements): 1 alert decided, 1 changed; …". */
export function importSummary(r: VexImportResult): string {
  return (
    `Imported the ${FORMAT_LABELS[r.format] ?? r.format} ${r.specVersion} document ` +
    `(${plural(r.statements, 'statement', 'statements')}): ${plural(r.applied, 'alert', 'alerts')} decided, ` +
    `${r.changed.toLocaleString('en')} changed; ${plural(r.unmatched.length, 'statement', 'statements')} not applied.`
  );
}

/**
 * Sends the file as it is, byte for byte (api.ts sends JSON it serializes itself), with api.ts's session header, and
 * throws its refusal as api.ts does (ApiError).
 */
async function postDocument(projectId: string, doc: Blob, overwrite: boolean): Promise<VexImportResult> {
  const res = await fetch(
    url(`/projects/${encodeURIComponent(projectId)}/vex`, { overwrite: overwrite || undefined }),
    {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Svc-App': '1', Accept: 'application/json', 'Content-Type': 'application/json' },
      body: doc,
    },
  );
  const body = await res.text();
  let data: unknown = null;
  try {
    data = body ? JSON.parse(body) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const retry = Number(res.headers.get('Retry-After'));
    throw new ApiError(
      res.status,
      typeof err?.code === 'string' ? err.code : 'http_error',
      typeof err?.message === 'string' ? err.message : `HTTP ${res.status}`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  return data as VexImportResult;
}

/** What the API's refusal names (`document: is not valid JSON`), in words. */
const SUBJECTS: Record<string, string> = { document: 'The document', body: 'The request' };

/**
 * A refusal of the import in words: the document's own ("document: is not valid JSON", "document: at most 5 MB")
 * as a sentence about the document, others as every form says them (errorText).
 */
export function importRefusalText(e: unknown): string {
  if (e instanceof ApiError && e.status !== 429) {
    const m = /^(document|body): (.+)$/s.exec(e.message);
    if (m) {
      const what = m[2].trim().replace(/\.$/, '');
      if (e.status === 413) return `${SUBJECTS[m[1]]} is too large: ${what}.`;
      return /^(is|are|must|has|have|should|cannot)\b/.test(what)
        ? `${SUBJECTS[m[1]]} ${what}.`
        : `${SUBJECTS[m[1]]}: ${what}.`;
    }
  }
  return errorText(e);
}

/** The API's reason as a sentence ("no alert of this project is for X" → "No alert of this project is for X."). */
export function reasonText(reason: string): string {
  const t = reason.trim();
  if (!t) return t;
  const first = /^[a-z]/.test(t) ? t[0].toUpperCase() + t.slice(1) : t;
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** A refusal that is about the document itself (said at the file's input): too large, not JSON, not VEX. */
const aboutTheFile = (e: unknown) => e instanceof ApiError && (e.status === 413 || e.status === 422);

/**
 * The import form and its report, for the roles that triage (nothing for the others). `id` prefixes the controls'
 * ids; `onImported` follows an import that changed alerts (the page reads them again).
 */
export function VexImport({
  projectId,
  id = 'vex-import',
  onImported,
}: {
  projectId: string;
  id?: string;
  onImported?(result: VexImportResult): void;
}) {
  const me = useMe();
  const [file, setFile] = useState<File | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [busy, setBusy] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<{ report: VexImportResult; name: string; overwrite: boolean } | null>(null);
  const [imported, setImported] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const summary = useRef<HTMLParagraphElement>(null);
  // the report takes the focus once shown (the form stays where it was, above it)
  useEffect(() => {
    if (imported) summary.current?.focus();
  }, [imported]);
  if (!canTriage(me.member?.role)) return null;

  const fileId = `${id}-file`;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setError(null);
    setFileError(null);
    setResult(null);
    if (!file) {
      setFileError('Choose a VEX document (a JSON file) to import.');
      input.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const report = await postDocument(projectId, file, overwrite);
      setResult({ report, name: file.name, overwrite });
      setImported((n) => n + 1);
      if (report.changed) onImported?.(report);
    } catch (err) {
      const text = `${file.name} was not imported: ${importRefusalText(err)}`;
      if (aboutTheFile(err)) {
        setFileError(text);
        input.current?.focus();
      } else setError(text);
    } finally {
      setBusy(false);
    }
  };

  const report = result?.report;
  const people = report?.unmatched.filter((u) => u.code === 'person_analysis').length ?? 0;
  return (
    <section class="vex-import" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import VEX</h2>
      <form class="triage-form vex-import-form" aria-label="Import a VEX document" noValidate onSubmit={submit}>
        <fieldset>
          <legend>VEX document</legend>
          <div class="field">
            <label for={fileId}>File (JSON)</label>
            <input
              id={fileId}
              ref={input}
              type="file"
              accept=".json,application/json,application/vnd.cyclonedx+json,application/openvex+json"
              aria-required="true"
              onChange={(e) => {
                setFile(e.currentTarget.files?.[0] ?? null);
                setFileError(null);
              }}
              {...errorAria(`${fileId}-error`, fileError ?? undefined, `${fileId}-hint`)}
            />
            <span id={`${fileId}-hint`} class="muted">
              CycloneDX 1.4 to 1.6 VEX, or OpenVEX 0.2; at most {VEX_IMPORT_MAX_MB} MB. Its statements decide the alerts
              of this project they name.
            </span>
            {fileError ? (
              <p id={`${fileId}-error`} class="field-error" role="alert">
                {fileError}
              </p>
            ) : null}
          </div>
          <label class="check">
            <input
              type="checkbox"
              id={`${id}-overwrite`}
              checked={overwrite}
              onChange={(e) => setOverwrite(e.currentTarget.checked)}
              aria-describedby={`${id}-overwrite-hint`}
            />
            Replace analyses people made (overwrite)
          </label>
          <span id={`${id}-overwrite-hint`} class="muted">
            Without it, an alert a person has decided keeps that analysis and its statement is not applied.
          </span>
        </fieldset>
        <div class="actions">
          {/* not disabled while busy: a disabled button would lose the focus of a keyboard user */}
          <button type="submit" class="primary" aria-disabled={busy || undefined}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        </div>
        <Outcome error={error} done={null} />
      </form>
      <p role="status" class="vex-summary" tabIndex={-1} ref={summary}>
        {report ? importSummary(report) : ''}
      </p>
      {report && result ? (
        <div class="vex-report">
          {report.alerts.length ? (
            <>
              <h3>Alerts decided</h3>
              <ListTable
                caption={`Alerts decided by ${result.name}`}
                columns={['#', 'Alert', 'Advisory', 'Package', 'Versions', 'State', 'Changed']}
              >
                {report.alerts.slice(0, ROWS_SHOWN).map((a) => (
                  <tr key={`${a.statement} ${a.alertId}`}>
                    <td>{a.statement + 1}</td>
                    <th scope="row" class="cell-wrap">
                      <a href={paths.alert(a.alertId)}>
                        <span class="visually-hidden">Alert </span>
                        {a.alertId}
                      </a>
                    </th>
                    <td class="cell-wrap">{a.advisory}</td>
                    <td class="cell-wrap">{a.package}</td>
                    <td class="cell-wrap">{a.versions ? a.versions.join(', ') : 'every installed version'}</td>
                    <td>{STATE_LABELS[a.state]}</td>
                    <td>{a.changed ? 'yes' : 'no (already so)'}</td>
                  </tr>
                ))}
              </ListTable>
              {report.alerts.length > ROWS_SHOWN ? (
                <p class="muted">
                  The first {ROWS_SHOWN} of {report.alerts.length.toLocaleString('en')} alerts are shown.
                </p>
              ) : null}
            </>
          ) : null}
          {report.unmatched.length ? (
            <>
              <h3>Statements not applied</h3>
              <ListTable
                caption={`Statements of ${result.name} not applied`}
                columns={['#', 'Vulnerability', 'Package', 'Reason']}
              >
                {report.unmatched.slice(0, ROWS_SHOWN).map((u, i) => (
                  <tr key={`${u.statement} ${i}`}>
                    <td>{u.statement + 1}</td>
                    <td class="cell-wrap">{u.vulnerability ?? <span class="muted">not given</span>}</td>
                    <td class="cell-wrap">{u.package ?? <span class="muted">not given</span>}</td>
                    <td>{reasonText(u.reason)}</td>
                  </tr>
                ))}
              </ListTable>
              {report.unmatched.length > ROWS_SHOWN ? (
                <p class="muted">
                  The first {ROWS_SHOWN} of {report.unmatched.length.toLocaleString('en')} statements are shown.
                </p>
              ) : null}
              {people && !result.overwrite ? (
                <p class="muted">
                  {people === 1 ? 'One statement names an alert' : `${people} statements name alerts`} a person has
                  decided: import the document again with “Replace analyses people made” ticked to replace{' '}
                  {people === 1 ? 'that analysis' : 'those analyses'}.
                </p>
              ) : null}
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
