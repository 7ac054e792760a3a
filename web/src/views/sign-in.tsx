// Sign-in with a code by email (platform.md §3): POST /v1/sessions/codes {email} → 202 (a code is mailed and a
// binding cookie set), then POST /v1/sessions {email, code} → 201 and the HttpOnly session cookie. The app never
// sees a credential. After sign-in it returns to the URL the user first asked for (same-app paths only).
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError } from '../api';
import { Page } from '../components/page';
import { safeNext } from '../paths';
import { useSession } from '../session';

function message(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return 'That code is wrong, expired or already used. Ask for a new one.';
    if (e.status === 429) return `Too many attempts. Try again in ${e.retryAfter ?? 60} seconds.`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

export default function SignIn() {
  const { query, route } = useLocation();
  const { refresh } = useSession();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const requestCode = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/sessions/codes', { email: email.trim() }, { quiet401: true });
      setSent(true);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  const submitCode = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/sessions', { email: email.trim(), code: code.trim() }, { quiet401: true });
      await refresh();
      route(safeNext(query.next), true);
    } catch (err) {
      setError(message(err));
      setBusy(false);
    }
  };

  return (
    <Page title="Sign in">
      {!sent ? (
        <form onSubmit={requestCode} class="stack">
          <label for="email">Email address</label>
          <input id="email" name="email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Send me a code
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} class="stack">
          <p role="status">
            If <strong>{email}</strong> can sign in, a code is on its way. It is valid for 10 minutes.
          </p>
          <label for="code">Code from the email</label>
          <input id="code" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{8}" maxLength={8} required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          <button type="button" class="link" onClick={() => { setSent(false); setCode(''); setError(null); }}>
            Use another email address
          </button>
        </form>
      )}
      {error ? <p role="alert" class="error">{error}</p> : null}
    </Page>
  );
}
