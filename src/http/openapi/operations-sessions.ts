// Sign-in and sign-out (src/http/sessions/routes.ts).
import type { Operation } from './operation';
import { ref } from './schemas/common';

const setCookie = (what: string) => ({ 'Set-Cookie': { description: what, schema: { type: 'string' } } });
const body422 =
  'invalid_parameter (the body is not a JSON object, or email is not one email address), missing_parameter (email or code absent or empty).';

export const sessionOperations = {
  'POST /v1/sessions/codes': {
    operationId: 'requestSignInCode',
    tag: 'sessions',
    summary: 'Mail a one-time sign-in code',
    description:
      'Sends an 8-digit code (single use, 10 minutes, 5 attempts) to the email, replacing any earlier code, and binds it to this browser with the ' +
      'HttpOnly cookie `__Host-svc_login` (SameSite=Strict). The answer is the same for every email, known or not. Limited per email (5) and per ' +
      'client address (20) per 15 minutes, always.',
    requestBody: { description: 'Who signs in.', required: true, schema: ref('SignInCodeRequest') },
    responses: {
      202: {
        description: 'Accepted (the code is mailed in the background).',
        schema: ref('SignInCodeAccepted'),
        headers: setCookie('`__Host-svc_login=<binding>; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=600`'),
      },
      422: { description: body422, codes: ['invalid_parameter', 'missing_parameter'] },
      429: {
        description:
          'rate_limited: too many codes for this email or client address; Retry-After says when the window ends.',
        codes: ['rate_limited'],
      },
    },
    usesDatabase: true,
  },
  'POST /v1/sessions': {
    operationId: 'signIn',
    tag: 'sessions',
    summary: 'Sign in with the mailed code',
    description:
      "Checks the code against the email's current code and the browser's `__Host-svc_login` binding. A new email creates the user (no " +
      'organization until an invitation is accepted). The session is the HttpOnly cookie `__Host-svc_session`: a credential on /v1 only with ' +
      "the header `X-Svc-App: 1`, and for non-GET requests only from the app's origin (Sec-Fetch-Site: same-origin or Origin = PUBLIC_APP_URL's).",
    requestBody: { description: 'The email and its code.', required: true, schema: ref('SignInRequest') },
    responses: {
      201: {
        description: 'Signed in.',
        schema: ref('NewSession'),
        headers: setCookie(
          '`__Host-svc_session=<svc_ses_ token>; HttpOnly; Secure; SameSite=Lax; Path=/` (and the binding cookie cleared).',
        ),
      },
      401: {
        description:
          'invalid_token: the code is wrong, expired, used, replaced, out of attempts, or was not requested from this browser.',
        codes: ['invalid_token'],
      },
      422: { description: body422, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'DELETE /v1/sessions/current': {
    operationId: 'signOut',
    tag: 'sessions',
    summary: 'Sign out: revoke the calling session',
    description: 'Revokes the session that authenticated the request (cookie or Bearer) and clears the session cookie.',
    responses: {
      204: { description: 'Revoked.', headers: setCookie('`__Host-svc_session=; ...; Max-Age=0` (cleared).') },
    },
    usesDatabase: true,
  },
} satisfies Record<string, Operation>;
