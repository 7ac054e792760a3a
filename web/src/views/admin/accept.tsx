// The page behind an invitation's link, `<PUBLIC_APP_URL>/invitations/accept#token=...`. The token is
// read from the fragment (which browsers never send to a server), then removed from the address bar so history does
// not keep it; it lives in this module's memory only (never in localStorage or sessionStorage). The invitation is
// looked up (POST /v1/invitations/lookups, public), the visitor signs in right here when needed (code by email, the
// invitation's address prefilled), then accepts (POST /v1/invitations/acceptances) and lands in the organization.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError } from '../../api';
import { When } from '../../components/bits';
import { CodeSignInForm } from '../../components/code-sign-in';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { paths } from '../../paths';
import { ROLE_LABELS } from '../../roles';
import { useSession } from '../../session';
import type { InvitationLookup as Lookup } from '../../types';
import '../../components/admin/admin.css';

let heldToken: string | null = null;

/** The token of the link: taken from the fragment once (then the fragment is dropped), kept in memory. */
function takeToken(): string | null {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    heldToken = decodeURIComponent(m[1]);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return heldToken;
}

function refusal(code: string, inv: Lookup | undefined, signedInAs: string | undefined): string {
  const org = inv ? inv.org.name : 'the organization';
  switch (code) {
    case 'invite_expired':
    case 'expired':
      return `This invitation has expired. Ask an administrator of ${org} to invite you again.`;
    case 'invite_revoked':
    case 'revoked':
      return `This invitation was revoked. Ask an administrator of ${org} for a new one.`;
    case 'invite_already_accepted':
    case 'accepted':
      return 'This invitation was already accepted. An invitation works once.';
    case 'invite_email_mismatch':
      return `This invitation was sent to ${inv?.email ?? 'another address'}, but you are signed in as ${signedInAs ?? 'someone else'}. Sign out, then sign in as ${inv?.email ?? 'the invited address'}.`;
    case 'already_in_org':
      return `You already belong to an organization. An account belongs to one organization at a time: leave it first, or accept with another email address.`;
    case 'not_found':
      return 'This invitation link is not valid. Check that you opened the whole link from the invitation.';
    default:
      return code;
  }
}

export default function AcceptInvitation() {
  const [token, setToken] = useState(takeToken);
  useEffect(() => {
    // another invitation's link opened in this tab only changes the fragment: take its token too
    const onHash = () => setToken(takeToken());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const session = useSession();
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setError(null), [token]);
  const lookup = useLoad<Lookup | null>(
    () => (token ? api.post<Lookup>('/invitations/lookups', { token }, { quiet401: true }) : Promise.resolve(null)),
    [token],
  );
  const inv = lookup.data ?? undefined;
  const state = session.state;
  const me = state.status === 'signed-in' ? state.me : undefined;

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.call('POST', '/invitations/acceptances', { body: { token }, quiet401: true });
      heldToken = null;
      await session.refresh();
      route(paths.home());
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        session.lost(); // the session ended meanwhile: sign in again right here
        setError('Your session has ended: sign in again to accept.');
      } else if (e instanceof ApiError) setError(refusal(e.code, inv, me?.user.email));
      else setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };

  if (!token) {
    return (
      <Page title="Accept an invitation">
        <p role="alert" class="error">
          This page needs the link from an invitation (it ends with <code>#token=</code>). Open the link you received
          again.
        </p>
      </Page>
    );
  }
  const lookupError = lookup.error
    ? lookup.error instanceof ApiError
      ? refusal(lookup.error.code, undefined, undefined)
      : String(lookup.error)
    : undefined;
  return (
    <Page title="Accept an invitation">
      <Status loading={lookup.loading && !inv} error={lookupError} />
      {inv ? (
        <>
          <p>
            You are invited to join <strong>{inv.org.name}</strong>.
          </p>
          <dl class="facts invite">
            <dt>Organization</dt>
            <dd>{inv.org.name}</dd>
            <dt>Invited email</dt>
            <dd>{inv.email}</dd>
            <dt>Role</dt>
            <dd>{ROLE_LABELS[inv.role] ?? inv.role}</dd>
            <dt>Status</dt>
            <dd>{inv.status}</dd>
            <dt>Expires</dt>
            <dd>
              <When iso={inv.expiresAt} />
            </dd>
          </dl>
          {inv.status !== 'pending' ? (
            <p role="alert" class="error">
              {refusal(inv.status, inv, me?.user.email)}
            </p>
          ) : state.status === 'signed-out' ? (
            <section aria-labelledby="invite-sign-in">
              <h2 id="invite-sign-in">Sign in to accept</h2>
              <CodeSignInForm
                idPrefix="invite-sign-in-"
                initialEmail={inv.email}
                wide
                onSignedIn={() => session.refresh()}
              />
            </section>
          ) : me ? (
            <div class="stack">
              <p>
                Signed in as <strong>{me.user.email}</strong>
                {me.org ? ` (already a member of ${me.org.name})` : ''}.
              </p>
              {me.user.email.toLowerCase() !== inv.email.toLowerCase() ? (
                <p class="muted">
                  This invitation is for another address: to accept it, sign out and sign in as {inv.email}.
                </p>
              ) : null}
              <div class="actions">
                <button type="button" class="primary" disabled={busy} onClick={accept}>
                  Accept and join {inv.org.name}
                </button>
                <button type="button" disabled={busy} onClick={() => void session.signOut()}>
                  Sign out
                </button>
              </div>
            </div>
          ) : null}
        </>
      ) : null}
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
    </Page>
  );
}
