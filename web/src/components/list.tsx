// A list view's pieces: its table (caption for screen readers, column headers) and the button that reads the next
// page of a list shown whole (usePages in hooks.ts). Text only: every value from the API is a text node.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Pages } from '../hooks';

/**
 * Names each body cell after its column (`data-label`), which a narrow screen shows before the cell's value once the
 * table is laid out as one card per row (styles.css): a table never makes a phone's page scroll sideways.
 */
export function useCellLabels(columns: readonly string[]) {
  const table = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    for (const tr of Array.from(table.current?.tBodies[0]?.rows ?? []))
      Array.from(tr.cells).forEach((cell, i) => {
        const label = columns[i] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
      });
  });
  return table;
}

/** A sort key of a row: text (compared as people read it: "a2" before "a10"), a number or a time; null sorts last. */
export type SortKey<T> = (row: T) => string | number | null | undefined;

export interface Sort {
  /** The column sorted by (-1: the list's own order) and the direction. */
  by: number;
  dir: 'asc' | 'desc';
  /** Which columns can be sorted. */
  sortable: boolean[];
  /** Sorts by this column: ascending first, descending on a second press. */
  set(column: number): void;
}

function compare(a: string | number | null | undefined, b: string | number | null | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/**
 * The rows in the order a column's header asks for (the list's own order until one is pressed): `keys` has one
 * entry per column, null for a column that does not sort. Rows with equal keys keep their order.
 */
export function useSorted<T>(rows: T[], keys: ReadonlyArray<SortKey<T> | null>): { rows: T[]; sort: Sort } {
  const [state, setState] = useState<{ by: number; dir: 'asc' | 'desc' }>({ by: -1, dir: 'asc' });
  const sorted = useMemo(() => {
    const key = state.by >= 0 ? keys[state.by] : null;
    if (!key) return rows;
    const sign = state.dir === 'asc' ? 1 : -1;
    return rows
      .map((row, i) => ({ row, i, k: key(row) }))
      .sort((a, b) => {
        const c = compare(a.k, b.k);
        // nulls stay last whichever the direction
        const nulls = a.k === null || a.k === undefined || b.k === null || b.k === undefined;
        return (nulls ? c : c * sign) || a.i - b.i;
      })
      .map((x) => x.row);
  }, [rows, state.by, state.dir]);
  return {
    rows: sorted,
    sort: {
      ...state,
      sortable: keys.map((k) => k !== null),
      set: (column) => setState((s) => ({ by: column, dir: s.by === column && s.dir === 'asc' ? 'desc' : 'asc' })),
    },
  };
}

/** A row's findings as one number that sorts by severity: criticals first, then highs, mediums, lows. */
export function severityRank(c: { critical: number; high: number; medium: number; low: number } | null | undefined) {
  if (!c) return null;
  const cap = (n: number) => Math.min(n, 999);
  return -(cap(c.critical) * 1e9 + cap(c.high) * 1e6 + cap(c.medium) * 1e3 + cap(c.low));
}

/**
 * A table of rows with a visually hidden caption and one header per column; `children` are the body's rows. With
 * `sort`, a sortable column's header is a button (and says its order with aria-sort).
 */
export function ListTable({
  caption,
  columns,
  children,
  sort,
}: {
  caption: ComponentChildren;
  columns: readonly string[];
  children: ComponentChildren;
  sort?: Sort;
}) {
  const table = useCellLabels(columns);
  return (
    <table class="grid" ref={table}>
      <caption class="visually-hidden">
        {caption}
        {sort ? ' (a column header sorts the rows shown)' : ''}
      </caption>
      <thead>
        <tr>
          {columns.map((c, i) => {
            if (!sort?.sortable[i])
              return (
                <th key={c} scope="col">
                  {c}
                </th>
              );
            const on = sort.by === i;
            return (
              <th key={c} scope="col" aria-sort={on ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                <button type="button" class="sort" onClick={() => sort.set(i)}>
                  {c}
                  <span aria-hidden="true" class="sort-mark">
                    {on ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ' ↕'}
                  </span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** "More …": appends the next page of a list shown whole; absent on the last page, disabled while a page loads. */
export function MoreButton({ pages, label }: { pages: Pages<unknown>; label: string }) {
  if (!pages.next) return null;
  return (
    <button type="button" disabled={pages.loading} onClick={pages.more}>
      {label}
    </button>
  );
}
