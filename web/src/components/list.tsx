// A list view's pieces: its table (caption for screen readers, column headers) and the button that reads the next
// page of a list shown whole (usePages in hooks.ts). Text only: every value from the API is a text node.
import type { ComponentChildren } from 'preact';
import type { Pages } from '../hooks';

/** A table of rows with a visually hidden caption and one header per column; `children` are the body's rows. */
export function ListTable({
  caption,
  columns,
  children,
}: {
  caption: ComponentChildren;
  columns: readonly string[];
  children: ComponentChildren;
}) {
  return (
    <table class="grid">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
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
