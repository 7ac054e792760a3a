// Budgets counted as parts arrive, exact under concurrent PUTs on any MongoDB-wire backend. A conditional update or
// $inc cannot decide it on FerretDB (it updates by read-then-write: two concurrent reservations may both pass), so
// every PUT of a part not yet stored appends an entry to the upload's ledger: an insert whose _id is the next
// sequence number, which the backend makes unique, so the entries form one total order without gaps. Each entry
// holds its part's counts; whether it is accepted is a pure function of the entries before it (this file), which
// every writer computes alike: the part that crosses a budget is refused (413) and never stored, whichever request
// arrives or finishes first.
import { overBudget, zeroCounts, type Counted, type PartCounts } from './parts';

export interface LedgerEntry {
  /** 1, 2, ... without gaps. */
  seq: number;
  /** The part number the entry reserves for. */
  n: number;
  /** SHA-256 hex of the part's bytes. */
  sha256: string;
  counts: PartCounts;
}

export type LedgerDecision =
  /** Counted: the part may be stored. */
  | { kind: 'accepted' }
  /** The same part was accepted by an earlier entry: this one counts nothing (its bytes are compared with that one's). */
  | { kind: 'duplicate'; of: LedgerEntry }
  /** With the accepted parts before it, this one goes over a budget. */
  | { kind: 'refused'; budget: Counted; total: number; limit: number };

/**
 * The decision of every entry, in sequence order. `entries` must be the whole ledger up to the last entry asked
 * about, sorted by seq (an entry is decided by those before it only).
 */
export function decideLedger(entries: readonly LedgerEntry[]): LedgerDecision[] {
  const totals = zeroCounts();
  const accepted = new Map<number, LedgerEntry>();
  const out: LedgerDecision[] = [];
  for (const e of entries) {
    const first = accepted.get(e.n);
    if (first) {
      out.push({ kind: 'duplicate', of: first });
      continue;
    }
    const over = overBudget(totals, e.counts);
    if (over) {
      out.push({ kind: 'refused', ...over });
      continue;
    }
    for (const k of Object.keys(totals) as Counted[]) totals[k] += e.counts[k];
    accepted.set(e.n, e);
    out.push({ kind: 'accepted' });
  }
  return out;
}

/** The counted totals of the accepted entries (what the stored parts hold). */
export function acceptedTotals(entries: readonly LedgerEntry[]): PartCounts {
  const totals = zeroCounts();
  decideLedger(entries).forEach((d, i) => {
    if (d.kind === 'accepted') for (const k of Object.keys(totals) as Counted[]) totals[k] += entries[i].counts[k];
  });
  return totals;
}
