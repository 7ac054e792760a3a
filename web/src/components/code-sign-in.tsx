// Sign-in with a code by email, the one form of the sign-in page and of the invitation page:
// POST /v1/sessions/codes {email} → 202 (a code is mailed and a binding cookie set), then POST /v1/sessions
// {email, code} → 201 and the HttpOnly session cookie. The app never sees a credential. Calls `onSignedIn` after.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';

function message(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return 'That code is wrong, expired or already used. Ask for a new one.';
    if (e.status === 429) return `Too many attempts. Try again in ${e.retryAfter ?? 60} seconds.`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * The email step, then the code step, and the last failure as an alert. `idPrefix` keeps the fields' ids unique on
 * their page; `wide` widens the email field (the invitation page's admin styles).
 */
export function CodeSignInForm({
  idPrefix = '',
  initialEmail = '',
  wide,
  onSignedIn,
}: {
  idPrefix?: string;
  initialEmail?: string;
  wide?: boolean;
  onSignedIn: () => Promise<void>;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (e: Event, step: () => Promise<void>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {!sent ? (
        <form
          class="stack"
          onSubmit={(e) =>
            run(e, async () => {
              await api.post('/sessions/codes', { email: email.trim() }, { quiet401: true });
              setSent(true);
            })
          }
        >
          <label for={`${idPrefix}email`}>Email address</label>
          <input
            id={`${idPrefix}email`}
            name="email"
            class={wide ? 'wide' : undefined}
            type="email"
            autoComplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Send me a code
          </button>
        </form>
      ) : (
        <form
          class="stack"
          onSubmit={(e) =>
            run(e, async () => {
              await api.post('/sessions', { email: email.trim(), code: code.trim() }, { quiet401: true });
              await onSignedIn();
            })
          }
        >
          <p role="status">
            If <strong>{email}</strong> can sign in, a code is on its way. It is valid for 10 minutes.
          </p>
          <label for={`${idPrefix}code`}>Code from the email</label>
          <input
            id={`${idPrefix}code`}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{8}"
            maxLength={8}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          <button
            type="button"
            class="link"
            onClick={() => {
              setSent(false);
              setCode('');
              setError(null);
            }}
          >
            Use another email address
          </button>
        </form>
      )}
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
    </>
  );
}
