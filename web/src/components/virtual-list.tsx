// A virtualised list (rows of one fixed height) over @tanstack/virtual-core: only the rows in view (plus a few) are
// in the DOM, so 10,000 findings scroll smoothly. Accessible as a list: role=list, each row a listitem with its
// position (aria-posinset/aria-setsize). Keyboard: the list is one Tab stop (a roving tabindex: only the current
// row's first control, or the row itself, is tabbable); ArrowUp/ArrowDown/Home/End/PageUp/PageDown move the focus
// from row to row (scrolling the row into view first), ArrowRight/ArrowLeft from control to control within a row, Tab
// leaves the list. `stickyLabel` pins the header of the group the
// top row belongs to above the rows; `focusIndex` scrolls to a row and focuses it (the row a reader came back to).
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';

export interface VirtualListProps<T> {
  items: T[];
  rowHeight: number;
  label: string;
  /** The number of items the list will have when every page is loaded, or -1 when unknown. */
  setSize: number;
  itemKey(item: T, index: number): string;
  renderRow(item: T, index: number): ComponentChildren;
  /** Class of a row (for example to style group headers). */
  rowClass?(item: T): string;
  /** Called with the index of the last row in view (to load the next page near the end). */
  onRangeEnd?(lastIndex: number): void;
  /** Called once the first rows are in the DOM. */
  onFirstRows?(rows: number): void;
  /** The header pinned above the rows for the row at the top (its group's), or null for none. */
  stickyLabel?(index: number): ComponentChildren | null;
  /** A row to scroll to and focus (when it changes to a row index). */
  focusIndex?: number;
}

function useVirtualizer(
  opts: Omit<
    VirtualizerOptions<HTMLDivElement, HTMLDivElement>,
    'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'
  >,
) {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const full: VirtualizerOptions<HTMLDivElement, HTMLDivElement> = {
    ...opts,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    onChange: () => rerender(0),
  };
  const [v] = useState(() => new Virtualizer(full));
  v.setOptions(full);
  useLayoutEffect(() => v._didMount(), []);
  useLayoutEffect(() => v._willUpdate());
  return v;
}

const focusables = 'a[href], button, input, select, [tabindex]:not([tabindex="-1"])';

export function VirtualList<T>(p: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const pendingFocus = useRef<number | null>(null);
  const first = useRef(false);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const v = useVirtualizer({
    count: p.items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => p.rowHeight,
    overscan: 8,
  });
  const rows = v.getVirtualItems();
  const last = rows.length ? rows[rows.length - 1].index : -1;
  // the row that holds the list's one Tab stop
  const current = useRef(0);
  const top = Math.min(p.items.length - 1, Math.floor((v.scrollOffset ?? 0) / p.rowHeight));
  const sticky = p.stickyLabel && top >= 0 ? p.stickyLabel(top) : null;

  useEffect(() => {
    // the roving tabindex: every control in the rendered rows leaves the Tab order but the current row's first one
    for (const el of Array.from(scroller.current?.querySelectorAll<HTMLElement>('[data-index]') ?? [])) {
      const own = Number(el.dataset.index) === Math.min(current.current, p.items.length - 1);
      const controls = Array.from(el.querySelectorAll<HTMLElement>(focusables));
      controls.forEach((c, i) => c.setAttribute('tabindex', own && i === 0 ? '0' : '-1'));
      el.setAttribute('tabindex', own && controls.length === 0 ? '0' : '-1');
    }
  });
  useEffect(() => {
    if (p.focusIndex === undefined || p.focusIndex < 0 || p.focusIndex >= p.items.length) return;
    current.current = p.focusIndex;
    v.scrollToIndex(p.focusIndex, { align: 'center' });
    if (!focusRow(p.focusIndex)) {
      pendingFocus.current = p.focusIndex;
      rerender(0);
    }
  }, [p.focusIndex]);

  useEffect(() => {
    if (last >= 0) p.onRangeEnd?.(last);
  }, [last, p.items.length]);
  useEffect(() => {
    if (!first.current && rows.length > 0) {
      first.current = true;
      p.onFirstRows?.(rows.length);
    }
  });
  useEffect(() => {
    // after a keyboard move, focus the target row once it is rendered
    const want = pendingFocus.current;
    if (want !== null && focusRow(want)) pendingFocus.current = null;
  });

  /** Focuses the row's first control (or the row itself); false when the row is not in the DOM. */
  function focusRow(index: number): boolean {
    const el = scroller.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    const target = el?.querySelector<HTMLElement>(focusables) ?? el;
    if (!target) return false;
    target.focus({ preventScroll: true });
    return true;
  }

  const enter = (e: FocusEvent) => {
    const rowEl = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (rowEl && Number(rowEl.dataset.index) !== current.current) {
      current.current = Number(rowEl.dataset.index);
      rerender(0);
    }
  };

  const move = (e: KeyboardEvent) => {
    const rowEl = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    const at = rowEl ? Number(rowEl.dataset.index) : -1;
    if ((e.key === 'ArrowRight' || e.key === 'ArrowLeft') && rowEl) {
      // from control to control within the row (a finding's own link, then its alert's)
      const controls = Array.from(rowEl.querySelectorAll<HTMLElement>(focusables));
      const next = controls[controls.indexOf(e.target as HTMLElement) + (e.key === 'ArrowRight' ? 1 : -1)];
      if (next) {
        e.preventDefault();
        next.focus({ preventScroll: true });
      }
      return;
    }
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? p.rowHeight * 10) / p.rowHeight) - 1);
    const to: Record<string, number> = {
      ArrowDown: at + 1,
      ArrowUp: at - 1,
      Home: 0,
      End: p.items.length - 1,
      PageDown: at + page,
      PageUp: at - page,
    };
    if (!(e.key in to) || p.items.length === 0) return;
    e.preventDefault();
    const index = Math.max(0, Math.min(p.items.length - 1, to[e.key]));
    v.scrollToIndex(index, { align: 'auto' });
    if (!focusRow(index)) {
      pendingFocus.current = index; // not rendered yet: focused after the next render
      rerender(0);
    }
  };

  return (
    <div class="vlist" ref={scroller} onKeyDown={move} onFocusIn={enter}>
      {sticky ? (
        <div class="vlist-sticky" aria-hidden="true">
          <div class="vrow group">{sticky}</div>
        </div>
      ) : null}
      <div
        class="vlist-inner"
        role="list"
        aria-label={p.label}
        ref={(el) => {
          if (el) el.style.height = `${v.getTotalSize()}px`;
        }}
      >
        {rows.map((r) => {
          const item = p.items[r.index];
          return (
            <div
              key={p.itemKey(item, r.index)}
              role="listitem"
              aria-posinset={r.index + 1}
              aria-setsize={p.setSize >= 0 ? p.setSize : -1}
              data-index={r.index}
              tabIndex={-1}
              class={`vrow ${p.rowClass?.(item) ?? ''}`}
              ref={(el) => {
                if (el) {
                  el.style.transform = `translateY(${r.start}px)`;
                  el.style.height = `${p.rowHeight}px`;
                }
              }}
            >
              {p.renderRow(item, r.index)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
