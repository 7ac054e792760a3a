// The bulk decision of a list (the Alerts view, a scan's findings): the selection bar (one checkbox for every row
// shown, how many are selected, the button that opens the triage form, one that clears the selection), the triage
// form without versions (components/triage-form.tsx) with its Cancel, and the outcome, which takes the focus once the
// list is read again. The list keeps its selection; this says it and acts on it. Only for the roles that triage.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { BULK_MAX, bulkResultText } from '../triage';
import type { AnalysisInput, BulkAnalysis, BulkAnalysisResult } from '../types';
import { TriageForm } from './triage-form';

export interface BulkTriageProps {
  /** Rows that can be selected, and how many are. */
  total: number;
  selected: number;
  /** The alerts the selection decides on (each once). */
  alertIds: readonly string[];
  /** "Select every alert shown (N)", "Triage the N selected…" and the like: the list's own words. */
  selectEveryLabel: string;
  countText: string;
  toggleLabel: string;
  formLabel: string;
  submitLabel: string;
  /** Selects every row shown (true) or none (false). */
  onSelectEvery(on: boolean): void;
  /** After a decision: the outcome's text (more sentences a list adds) and a new read of the list. */
  outcomeText?(result: BulkAnalysisResult, analysis: AnalysisInput): string;
  onDecided(): void;
  /** Changes whenever the list's filters do: the form and the outcome start afresh. */
  resetKey: string;
  children?: ComponentChildren;
}

export function BulkTriage(p: BulkTriageProps) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState('');
  const [decided, setDecided] = useState(0);
  const everyRef = useRef<HTMLInputElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const resultRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    setOpen(false);
    setDone('');
  }, [p.resetKey]);
  // the form goes away with the selection: the focus goes to the outcome, once shown
  useEffect(() => {
    if (decided) resultRef.current?.focus();
  }, [decided]);
  const n = p.selected;
  const apply = async (analysis: AnalysisInput) => {
    if (p.alertIds.length > BULK_MAX)
      throw new Error(`At most ${BULK_MAX} alerts are decided at once: ${p.alertIds.length} are selected.`);
    const body: BulkAnalysis = { alertIds: [...p.alertIds], analysis };
    const r = await api.post<BulkAnalysisResult>('/alerts/analysis', body);
    setDone(
      p.outcomeText?.(r, analysis) ?? `${bulkResultText(r.alerts.length, analysis.state)} (bulk decision ${r.bulkId})`,
    );
    setOpen(false);
    p.onDecided();
    setDecided((d) => d + 1);
  };
  return (
    <>
      {p.total ? (
        <div class="bulk" role="group" aria-label="Selection">
          <label class="check">
            <input
              type="checkbox"
              ref={everyRef}
              checked={n > 0 && n === p.total}
              indeterminate={n > 0 && n < p.total}
              onChange={(e) => p.onSelectEvery(e.currentTarget.checked)}
            />
            {p.selectEveryLabel}
          </label>
          <span class="bulk-count">{p.countText}</span>
          <button
            type="button"
            ref={toggleRef}
            disabled={!n}
            aria-expanded={open && n > 0}
            aria-controls={open && n ? 'bulk' : undefined}
            onClick={() => setOpen((o) => !o)}
          >
            {p.toggleLabel}
          </button>
          {n ? (
            <button
              type="button"
              onClick={() => {
                p.onSelectEvery(false);
                everyRef.current?.focus(); // this button goes with the selection
              }}
            >
              Clear the selection
            </button>
          ) : null}
        </div>
      ) : null}
      {p.children}
      {open && n ? (
        <TriageForm
          id="bulk"
          label={p.formLabel}
          target={{ installedVersions: null }}
          submitLabel={p.submitLabel}
          autoFocus
          onSubmit={apply}
        >
          <button
            type="button"
            onClick={() => {
              setOpen(false);
              toggleRef.current?.focus();
            }}
          >
            Cancel
          </button>
        </TriageForm>
      ) : null}
      <p role="status" class="bulk-result" tabIndex={-1} ref={resultRef}>
        {done}
      </p>
    </>
  );
}
