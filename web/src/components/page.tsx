// A view's frame: its heading (focused on navigation so screen readers announce the new page) and its body.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Page({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  const h = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Supply-chain scanner`;
    // The new page's heading takes the focus, unless the page has already put it somewhere (the row a reader came
    // back to): a title completed by a late answer must not take it away from there.
    const at = document.activeElement;
    const placed = at && at !== document.body && at.closest('main') && !at.matches('main, h1');
    if (!placed) h.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={h}>
          {title}
        </h1>
        {actions ? <div class="page-actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

/** A request's state, shown in one place: a polite live region for loading, an alert for errors. */
export function Status({ loading, error }: { loading?: boolean; error?: unknown }) {
  if (error)
    return (
      <p role="alert" class="error">
        {error instanceof Error ? error.message : String(error)}
      </p>
    );
  if (loading)
    return (
      <p role="status" class="muted">
        Loading…
      </p>
    );
  return null;
}
