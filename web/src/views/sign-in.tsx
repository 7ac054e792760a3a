// The sign-in page: the code-by-email form (components/code-sign-in.tsx). After sign-in it returns to the URL the
// user first asked for (same-app paths only).
import { useLocation } from 'preact-iso';
import { CodeSignInForm } from '../components/code-sign-in';
import { Page } from '../components/page';
import { safeNext } from '../paths';
import { useSession } from '../session';

export default function SignIn() {
  const { query, route } = useLocation();
  const { refresh } = useSession();
  return (
    <Page title="Sign in">
      {query.reason === 'expired' ? (
        <p role="status" class="notice">
          Your session has ended (it was signed out, or went 7 days unused, or reached its 30 days). Sign in again to go
          on where you were.
        </p>
      ) : null}
      <CodeSignInForm
        onSignedIn={async () => {
          await refresh();
          route(safeNext(query.next), true);
        }}
      />
    </Page>
  );
}
