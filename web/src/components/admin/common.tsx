// Pieces shared by the admin pages: error text from the API's envelope, an inline confirmation, a copy-once field,
// lists whose filter, cursor and page size live in the URL (the list, its filter, its pages as links). Text only:
// every value from the API is a text node.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError } from '../../api';
import { useLoad } from '../../hooks';
import { refusal } from '../../errors';
import { withQuery } from '../../paths';
import './admin.css';

/** What to show for a failed call: the API's refusal in words (errors.ts), or the error's text. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 429) return `Too many requests. Try again in ${e.retryAfter ?? 60} seconds.`;
    return refusal(e.status, e.code, e.message).text;
  }
  return e instanceof Error ? e.message : String(e);
}

/** The field a failed call's refusal names (an API body field such as `expiresAt`), if any. */
export function errorField(e: unknown): string | undefined {
  return e instanceof ApiError ? refusal(e.status, e.code, e.message).field : undefined;
}

/** A form's refusal, shown at the field it names (FieldError) or, naming none, under the form (Outcome). */
export function useFormError() {
  const [failure, setFailure] = useState<{ field?: string; text: string } | null>(null);
  return {
    failure,
    clear: () => setFailure(null),
    set: (field: string | undefined, text: string) => setFailure({ field, text }),
    fail: (e: unknown) => setFailure({ field: errorField(e), text: errorText(e) }),
    /**
     * The attributes of a field's input: invalid, and described by its message, while the refusal names it; `hint`:
     * the id of the field's own description, kept.
     */
    input: (field: string, id: string, hint?: string) =>
      failure?.field === field
        ? { 'aria-invalid': true as const, 'aria-describedby': [hint, `${id}-error`].filter(Boolean).join(' ') }
        : hint
          ? { 'aria-describedby': hint }
          : {},
    /** The message of a field, under its input. */
    at: (field: string, id: string) =>
      failure?.field === field ? (
        <p id={`${id}-error`} class="field-error" role="alert">
          {failure.text}
        </p>
      ) : null,
    /** The refusal that names no field of the form, for <Outcome>. */
    general: (fields: readonly string[]) => (failure && !fields.includes(failure.field ?? '') ? failure.text : null),
  };
}

/** An alert for the last action's failure, a polite status for its success. */
export function Outcome({ error, done }: { error?: string | null; done?: string | null }) {
  return (
    <div class="outcome">
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
      <p role="status" class="muted">
        {!error && done ? done : ''}
      </p>
    </div>
  );
}

/**
 * The last action's outcome, for <Outcome>. `run` is an action confirmed by a ConfirmButton (revoke, remove): it
 * clears the outcome, then shows the words the action returns (none: nothing to say) or `failure: <why>`.
 */
export function useOutcome() {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (failure: string, action: () => Promise<string | null>) => {
    setError(null);
    setDone(null);
    try {
      const words = await action();
      if (words) setDone(words);
    } catch (e) {
      setError(`${failure}: ${errorText(e)}`);
    }
  };
  return { error, done, setError, setDone, run };
}

/**
 * A button that asks before it acts: the question and Confirm/Cancel appear in its place, Confirm takes the focus,
 * Cancel (or Escape) gives it back to the button.
 */
export function ConfirmButton(props: {
  label: string;
  accessibleLabel: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) triggerRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        ref={triggerRef}
        aria-label={props.accessibleLabel}
        disabled={props.disabled}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  }
  return (
    <span
      class="confirm"
      role="group"
      aria-label={props.question}
      onKeyDown={(e) => e.key === 'Escape' && !busy && setAsking(false)}
    >
      <span class="confirm-question">{props.question}</span>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A value shown once (an API key's secret, an invitation link): read-only, selectable, with a copy button. */
export function CopyOnce({
  id,
  label,
  value,
  children,
  after,
}: {
  id: string;
  label: string;
  value: string;
  children?: ComponentChildren;
  after?: ComponentChildren;
}) {
  const [copied, setCopied] = useState<string>('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('The browser refused the clipboard: the text is selected, copy it with Ctrl+C.');
    }
  };
  return (
    <div class="once">
      {children}
      <label for={id}>{label}</label>
      <div class="once-row">
        <input
          id={id}
          ref={input}
          class="once-value"
          type="text"
          readOnly
          value={value}
          spellcheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" class="muted">
        {copied}
      </p>
      {after}
    </div>
  );
}

/** Cursor pages as links: the cursor (and the filters) stay in the URL, so a reload shows the same page. */
export function Pager({
  path,
  query,
  cursor,
  nextCursor,
  label,
}: {
  path: string;
  query: Record<string, string | undefined>;
  cursor?: string;
  nextCursor?: string | null;
  label: string;
}) {
  if (!cursor && !nextCursor) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      {cursor ? <a href={withQuery(path, { ...query, cursor: undefined })}>First page</a> : null}
      {nextCursor ? <a href={withQuery(path, { ...query, cursor: nextCursor })}>Next page</a> : null}
    </nav>
  );
}

/** The page size from the URL (`limit`, 1..200; the API's default 50 otherwise). */
export function limitOf(q: Record<string, string | undefined>): number | undefined {
  const n = Number(q.limit);
  return Number.isInteger(n) && n >= 1 && n <= 200 ? n : undefined;
}

/** A URL parameter that must be one of `values`: anything else is no filter. */
export function oneOf(values: readonly string[], v: string | undefined): string | undefined {
  return v !== undefined && values.includes(v) ? v : undefined;
}

/**
 * One page of an admin list (GET `endpoint` with `filters`, the cursor and the page size from the URL). `filterQuery`
 * is the URL's query without the cursor: the filter and the pager build their links from it.
 */
export function useUrlList<R>(endpoint: string, filters: Record<string, string | undefined>) {
  const { path, query } = useLocation();
  const cursor = query.cursor || undefined;
  const limit = limitOf(query);
  const filterQuery = { ...filters, limit: limit ? String(limit) : undefined };
  const list = useLoad(
    (signal) => api.get<R & { nextCursor: string | null }>(endpoint, { ...filters, cursor, limit }, signal),
    [endpoint, ...Object.values(filters), cursor, limit],
  );
  return { list, pager: { path, query: filterQuery, cursor, nextCursor: list.data?.nextCursor } };
}

/**
 * A list's filter by one value (a status, a role): a select in a search form; a choice goes into the URL (first page,
 * same page size).
 */
export function ListFilter(props: {
  form: string;
  id: string;
  label: string;
  any: string;
  param: string;
  value: string | undefined;
  values: readonly string[];
  labels: Record<string, string>;
  query: Record<string, string | undefined>;
}) {
  const { path, route } = useLocation();
  return (
    <form class="toolbar" role="search" aria-label={props.form} onSubmit={(e) => e.preventDefault()}>
      <div class="field">
        <label for={props.id}>{props.label}</label>
        <select
          id={props.id}
          value={props.value ?? ''}
          onChange={(e) =>
            route(withQuery(path, { ...props.query, [props.param]: e.currentTarget.value || undefined }))
          }
        >
          <option value="">{props.any}</option>
          {props.values.map((v) => (
            <option key={v} value={v}>
              {props.labels[v]}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}
