// Webhooks: session-only, Admin or Owner. The secret is in the 201 response once and nowhere else;
// it is stored sealed (storage/secrets.ts), since signing deliveries needs it back. A chat webhook (format slack or
// teams) has no secret; its URL is the credential: stored sealed, shown and audited only as `https://host/…`.
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../../domain/webhooks/chat';
import { SEVERITIES, type Severity } from '../../shared/types';
import { findProject } from '../../storage/projects';
import {
  checkDestination,
  DestinationRefused,
  MAX_URL_LENGTH,
  policyFromEnv,
  type DestinationPolicy,
} from '../../infra/webhooks/destination';
import { recordAudit } from '../../storage/audit';
import type { WebhookDoc } from '../../storage/documents/webhooks';
import { secretsFromEnv, type SecretBox } from '../../storage/secrets';
import {
  countWebhooks,
  createWebhook,
  deleteWebhook,
  listWebhooks,
  webhookFormat,
  MAX_WEBHOOKS_PER_ORG,
  WEBHOOK_EVENTS,
  withinFirst,
  type WebhookEvent,
} from '../../storage/webhooks';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { missing, objectBody, requiredString } from '../json-body';
import { cursorQuery, parseLimit } from '../pagination';
import { pathId } from '../params';

export function presentWebhook(w: WebhookDoc) {
  return {
    id: w._id,
    url: w.url,
    format: webhookFormat(w),
    events: w.events,
    createdBy: w.createdBy,
    createdAt: w.createdAt.toISOString(),
    minSeverity: w.minSeverity ?? null,
    projects: w.projects ?? null,
  };
}

/** `format`: absent or null (json), or one of WEBHOOK_FORMATS. */
function parseFormat(v: unknown): WebhookFormat {
  if (v === undefined || v === null) return 'json';
  if (typeof v !== 'string' || !(WEBHOOK_FORMATS as readonly string[]).includes(v))
    throw invalidParameter('format', `must be one of ${WEBHOOK_FORMATS.join(', ')} (default json)`);
  return v as WebhookFormat;
}

/** `minSeverity`: absent or null (every alert), or a severity. */
function parseMinSeverity(v: unknown): WebhookDoc['minSeverity'] {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !(SEVERITIES as readonly string[]).includes(v))
    throw invalidParameter('minSeverity', `must be one of ${SEVERITIES.join(', ')}, or null`);
  return v as Severity;
}

/** `projects`: absent or null (every project), or project ids or slugs of the organization, at most 100. */
async function parseProjects(deps: AppDeps, orgId: string, v: unknown): Promise<string[] | null> {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length === 0 || v.length > 100 || v.some((x) => typeof x !== 'string' || x === ''))
    throw invalidParameter('projects', 'must be a non-empty array of at most 100 project ids or slugs, or null');
  const ids: string[] = [];
  for (const ref of new Set(v as string[])) {
    const project = await findProject(deps.store, orgId, ref);
    if (!project) throw new ApiError(422, 'unknown_project', `projects: "${ref}" does not exist or is out of reach`);
    ids.push(project._id);
  }
  return [...new Set(ids)];
}

/** `events`: a non-empty array of known event types, duplicates folded, in the order first given. */
function parseEvents(v: unknown): WebhookEvent[] {
  if (v === undefined || v === null)
    throw missing('events', `must be a non-empty array of ${WEBHOOK_EVENTS.join(', ')}`);
  if (!Array.isArray(v)) throw invalidParameter('events', `must be a non-empty array of ${WEBHOOK_EVENTS.join(', ')}`);
  if (v.length === 0) throw missing('events', `must be a non-empty array of ${WEBHOOK_EVENTS.join(', ')}`);
  const bad = v.find((e) => !(WEBHOOK_EVENTS as readonly unknown[]).includes(e));
  if (bad !== undefined)
    throw invalidParameter('events', `unknown event ${JSON.stringify(bad)} (known: ${WEBHOOK_EVENTS.join(', ')})`);
  return [...new Set(v as WebhookEvent[])];
}

export function webhookRoutes(deps: AppDeps): Router {
  const r = new Router();
  // From the environment on first use when the process did not pass them (tests and the OpenAPI build never need them).
  let fromEnv: { box: SecretBox; policy: DestinationPolicy } | undefined;
  const config = () => deps.webhooks ?? (fromEnv ??= { box: secretsFromEnv(), policy: policyFromEnv() });

  r.post('/v1/webhooks', access(deps, 'POST /v1/webhooks'), async (ctx) => {
    const p = principalOf(ctx);
    const body = await objectBody(ctx);
    const url = requiredString(body, 'url', MAX_URL_LENGTH);
    const events = parseEvents(body.events);
    const format = parseFormat(body.format);
    const minSeverity = parseMinSeverity(body.minSeverity);
    const projects = await parseProjects(deps, p.orgId, body.projects);
    const { box, policy } = config();
    const full = () =>
      invalidParameter('webhooks', `at most ${MAX_WEBHOOKS_PER_ORG} per organization; delete one first`);
    if ((await countWebhooks(deps.store, p.orgId)) >= MAX_WEBHOOKS_PER_ORG) throw full();
    let href: string;
    try {
      // stored and shown as the URL standard serializes it (what deliveries parse back): no surrounding spaces, a
      // lowercase scheme and host, a path of at least "/"
      href = (await checkDestination(url, policy)).url.href;
    } catch (err) {
      if (err instanceof DestinationRefused) throw invalidParameter('url', err.message);
      throw err;
    }
    await recheck(deps, p); // after the resolution, just before the write: a session revoked meanwhile stores nothing
    const createdBy = p.kind === 'session' ? (p.member?._id ?? null) : null;
    const { doc, secret } = await createWebhook(deps.store, box, {
      orgId: p.orgId,
      url: href,
      format,
      events,
      createdBy,
      ...(minSeverity ? { minSeverity } : {}),
      ...(projects ? { projects } : {}),
    });
    // Concurrent creations may pass the count together: the newest past the bound withdraw themselves.
    if (!(await withinFirst(deps.store, p.orgId, doc._id, MAX_WEBHOOKS_PER_ORG))) {
      await deleteWebhook(deps.store, p.orgId, doc._id);
      throw full();
    }
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'webhook.created',
      actor: actorOf(p),
      // doc.url: a chat webhook's masked form (its URL is a credential, never in the audit trail)
      target: { kind: 'webhook', id: doc._id, url: doc.url, format, events },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { webhook: presentWebhook(doc), secret };
  });

  r.get('/v1/webhooks', access(deps, 'GET /v1/webhooks'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const listing = `webhooks:${p.orgId}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const docs = await listWebhooks(deps.store, p.orgId, { beforeId, limit: limit + 1 });
    await recheck(deps, p); // a session revoked while the list was read gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      webhooks: page.map(presentWebhook),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1]._id) : null,
    };
  });

  r.delete('/v1/webhooks/:webhookId', access(deps, 'DELETE /v1/webhooks/:webhookId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'webhookId', 'webhook');
    await recheck(deps, p);
    if (!(await deleteWebhook(deps.store, p.orgId, id))) throw notFound(`webhook ${JSON.stringify(id)}`);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'webhook.deleted',
      actor: actorOf(p),
      target: { kind: 'webhook', id },
      requestId: ctx.state.requestId,
    });
    ctx.status = 204;
  });

  return r;
}
