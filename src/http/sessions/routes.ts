// Sign-in by emailed one-time code, and sign-out. The code rules are in domain/sign-in, their state
// in storage/login-codes.ts, the cookie rules in auth/cookies.ts.
//
// No account enumeration: asking for a code does the same work for every well-formed email (no user is looked up;
// a code is stored and mailed to whatever address asked), answers 202 {} before the mail goes out, and a refused
// submission says the same thing whatever the reason, except "too many attempts", which only the browser holding the
// binding can reach.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../../domain/errors';
import {
  bindingHash,
  codeHash,
  CODE_TTL_MS,
  generateCode,
  isCodeShape,
  newBindingValue,
  normalizeSignInEmail,
  type CodeVerdict,
} from '../../domain/sign-in/codes';
import { singleAddress } from '../../infra/mail/message';
import { createSession, findOrCreateUser, findOrg, memberOfUser, revokeSessionByHash } from '../../storage/accounts';
import { recordAudit } from '../../storage/audit';
import { admitCodeRequest, issue, verify } from '../../storage/login-codes';
import { clearCookie, LOGIN_COOKIE, loginBinding, SESSION_COOKIE, setCookie } from '../auth/cookies';
import { access } from '../auth/matrix';
import type { AppDeps, SignInConfig } from '../deps';
import { missing, objectBody } from '../json-body';
import { actorOf } from '../audit/actor';

const refused = () =>
  new ApiError(
    401,
    'invalid_token',
    'the code is wrong, has expired or was used, or was not requested from this browser: ask for a new code',
  );
const REFUSALS: Record<Exclude<CodeVerdict, 'ok'>, () => ApiError> = {
  none: refused,
  replaced: refused,
  used: refused,
  expired: refused,
  unbound: refused,
  wrong: refused,
  too_many_attempts: () => new ApiError(401, 'invalid_token', 'too many attempts at this code: ask for a new code'),
};

function emailOf(body: Record<string, unknown>): string {
  if (body.email === undefined || body.email === null || body.email === '') throw missing('email');
  const email = normalizeSignInEmail(body.email);
  // the mail sender's own rule too: one plain address, never a list or a display name
  if (!email || !singleAddress(email)) throw invalidParameter('email', 'must be one email address');
  return email;
}

function codeMail(email: string, code: string, appUrl: string) {
  const minutes = CODE_TTL_MS / 60_000;
  return {
    to: email,
    subject: `Your sign-in code: ${code}`,
    text: [
      `Your sign-in code is ${code}.`,
      '',
      `Enter it on the sign-in page of ${appUrl} within ${minutes} minutes, in the browser where you asked for it.`,
      'It works once. If you did not ask for it, ignore this message: nobody can sign in without the code.',
    ].join('\n'),
    code,
  };
}

export function sessionRoutes(deps: AppDeps): Router {
  const r = new Router();
  const signIn: SignInConfig = deps.signIn!;
  const appUrl = deps.platform!.publicAppUrl;

  r.post('/v1/sessions/codes', async (ctx: Context) => {
    const email = emailOf(await objectBody(ctx));
    const now = new Date();
    const admission = await admitCodeRequest(deps.store, { email, address: ctx.ip || 'unknown' }, now, signIn.limits);
    if (!admission.admitted) {
      throw new ApiError(
        429,
        'rate_limited',
        `too many sign-in codes requested for this ${admission.scope === 'email' ? 'email' : 'client address'}; retry later`,
        admission.retryAfter,
      );
    }
    const binding = newBindingValue();
    const bound = bindingHash(binding);
    const code = generateCode();
    await issue(
      deps.store,
      {
        email,
        bindingHash: bound,
        codeHash: codeHash(signIn.codeKey, { email, bindingHash: bound, code }),
        expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      },
      now,
    );
    setCookie(ctx, LOGIN_COOKIE, binding, { maxAgeSeconds: CODE_TTL_MS / 1000, sameSite: 'Strict' });
    // Not awaited: the answer must not depend on the mail server (its latency or a refused recipient would tell
    // addresses apart). A failure is logged, without the code.
    signIn.mail.send(codeMail(email, code, appUrl)).catch((err: unknown) => {
      deps.logger.error(
        { err: err instanceof Error ? err.message : String(err), requestId: ctx.state.requestId },
        'sign-in code could not be mailed',
      );
    });
    ctx.status = 202;
    ctx.body = {};
  });

  r.post('/v1/sessions', async (ctx: Context) => {
    const body = await objectBody(ctx);
    const email = emailOf(body);
    if (body.code === undefined || body.code === null || body.code === '') throw missing('code');
    const binding = loginBinding(ctx);
    const bound = binding ? bindingHash(binding) : null;
    const submitted =
      isCodeShape(body.code) && bound ? codeHash(signIn.codeKey, { email, bindingHash: bound, code: body.code }) : null;
    const now = new Date();
    const { verdict } = await verify(deps.store, { email, bindingHash: bound, codeHash: submitted }, now);
    if (verdict !== 'ok') throw REFUSALS[verdict]();
    const user = await findOrCreateUser(deps.store, email);
    const { token, session } = await createSession(deps.store, user._id, now, 'app');
    const member = await memberOfUser(deps.store, user._id);
    const org = member ? await findOrg(deps.store, member.orgId) : null;
    if (member) {
      const actor = { memberId: member._id, userId: user._id, email: user.email };
      await recordAudit(deps.store, {
        orgId: member.orgId,
        type: 'session.created',
        actor,
        target: { kind: 'user', id: user._id, email: user.email },
        requestId: ctx.state.requestId,
      });
    }
    setCookie(ctx, SESSION_COOKIE, token, {
      maxAgeSeconds: (session.expiresAt.getTime() - now.getTime()) / 1000,
      sameSite: 'Lax',
    });
    clearCookie(ctx, LOGIN_COOKIE, 'Strict');
    ctx.status = 201;
    ctx.body = {
      user: { id: user._id, email: user.email },
      org: org && member ? { id: org._id, name: org.name } : null,
      member: org && member ? { id: member._id, role: member.role, joinedAt: member.joinedAt.toISOString() } : null,
      expiresAt: session.expiresAt.toISOString(),
    };
  });

  r.delete('/v1/sessions/current', access(deps, 'DELETE /v1/sessions/current'), async (ctx) => {
    const p = ctx.state.principal; // with or without an organization
    if (p?.kind !== 'session') return; // the guard admits sessions only
    const revoked = await revokeSessionByHash(deps.store, p.tokenHash);
    if (revoked && p.member) {
      await recordAudit(deps.store, {
        orgId: p.member.orgId,
        type: 'session.revoked',
        actor: actorOf(p),
        target: { kind: 'user', id: p.user.id, email: p.user.email },
        requestId: ctx.state.requestId,
      });
    }
    clearCookie(ctx, SESSION_COOKIE, 'Lax');
    ctx.status = 204;
  });
  return r;
}
