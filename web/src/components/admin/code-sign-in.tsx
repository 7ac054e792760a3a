// Sign-in with a code by email inside another page (the invitation page): POST /v1/sessions/codes {email}, then
// POST /v1/sessions {email, code}; the session is the HttpOnly cookie the server sets. Calls `onSignedIn` after.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../../api';

function message(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return 'That code is wrong, expired or already used. Ask for a new one.';
    if (e.status === 429) return `Too many attempts. Try again in ${e.retryAfter ?? 60} seconds.`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

export function CodeSignIn({ initialEmail, onSignedIn }: { initialEmail: string; onSignedIn: () => Promise<void> }) {
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
    <section aria-labelledby="invite-sign-in">
      <h2 id="invite-sign-in">Sign in to accept</h2>
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
          <label for="invite-sign-in-email">Email address</label>
          <input id="invite-sign-in-email" class="wide" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
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
          <label for="invite-sign-in-code">Code from the email</label>
          <input id="invite-sign-in-code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{8}" maxLength={8} required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
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
    </section>
  );
}
