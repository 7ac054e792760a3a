// The Koa application factory. It never listens by itself: main.ts listens, tests use app.callback().
import Koa from 'koa';
import type { AppDeps, AppState } from './deps';
import { apiKeyRoutes } from './api-keys/routes';
import { findingRoutes } from './findings/routes';
import { alertRoutes } from './alerts/routes';
import { triageRoutes } from './triage/routes';
import { vexRoutes } from './vex/routes';
import { triageRuleRoutes } from './triage/rules-routes';
import { compareRoutes } from './compare/routes';
import { healthRoutes } from './health/routes';
import { meRoutes } from './me/routes';
import { errorEnvelope } from './middleware/errors';
import { requestMetrics } from './middleware/metrics';
import { requestId } from './middleware/request-id';
import { scanRoutes } from './scans/routes';
import { auditRoutes } from './audit/routes';
import { cliRoutes } from './cli/routes';
import { invitationRoutes } from './invitations/routes';
import { memberRoutes } from './members/routes';
import { metaRoutes } from './meta/routes';
import { openApiRoutes } from './openapi/routes';
import { projectRoutes } from './projects/routes';
import { usageRoutes } from './usages/routes';
import { metricsRoutes } from './metrics/routes';
import { advisoryRoutes } from './advisories/routes';
import { scanReadRoutes } from './scans/reads';
import { uploadRoutes } from './multipart-uploads/routes';
import { exportRoutes } from './scans/exports';
import { webhookRoutes } from './webhooks/routes';
import { deliveryRoutes } from './webhooks/deliveries';
import { registrationTokenRoutes } from './hosts/tokens';
import { hostRoutes } from './hosts/routes';
import { enrollmentTokenRoutes } from './gateways/tokens';
import { gatewayRoutes } from './gateways/routes';
import { mcpRoutes } from './mcp/routes';
import { platformFromEnv } from './platform';
import { sessionRoutes } from './sessions/routes';
import { webAppRoutes } from './web/routes';
import { deriveCodeKey } from '../domain/sign-in/codes';
import { CODES_PER_ADDRESS, CODES_PER_EMAIL } from '../domain/sign-in/limits';
import { envInt, fleetWindowsFromEnv } from '../config';
import { mailFromEnv } from '../infra/mail';
import { masterKeyFromEnv } from '../storage/secrets';
import type { Logger } from '../logger';

/** Sign-in from the environment: MAIL_TRANSPORT / MAIL_FROM, and the code key derived from SECRETS_KEY. */
export function signInFromEnv(logger: Logger, env: NodeJS.ProcessEnv = process.env): NonNullable<AppDeps['signIn']> {
  return {
    mail: mailFromEnv(env, logger),
    codeKey: deriveCodeKey(masterKeyFromEnv(env)),
    limits: {
      perEmail: envInt('SIGN_IN_CODES_PER_EMAIL', CODES_PER_EMAIL, { min: 1, env }),
      perAddress: envInt('SIGN_IN_CODES_PER_ADDRESS', CODES_PER_ADDRESS, { min: 1, env }),
    },
  };
}

export function createApp(given: AppDeps): Koa<AppState> {
  // settings read once here, not per request
  // HOST_EXPIRY / GATEWAY_EXPIRY too: a malformed value stops the API at start, naming it
  const deps: AppDeps = {
    ...given,
    platform: given.platform ?? platformFromEnv(),
    signIn: given.signIn ?? signInFromEnv(given.logger),
    fleet: given.fleet ?? fleetWindowsFromEnv(),
  };
  const app = new Koa<AppState>({ proxy: process.env.TRUST_PROXY === '1' });
  app.silent = true; // errors are logged by the envelope middleware, with the request id
  app.use(requestMetrics()); // first: it records the status the error envelope chose
  app.use(requestId());
  app.use(errorEnvelope(deps.logger));
  for (const router of [
    healthRoutes(deps),
    cliRoutes(deps),
    metaRoutes(deps),
    openApiRoutes(deps),
    sessionRoutes(deps),
    meRoutes(deps),
    memberRoutes(deps),
    invitationRoutes(deps),
    apiKeyRoutes(deps),
    auditRoutes(deps),
    uploadRoutes(deps),
    scanRoutes(deps),
    findingRoutes(deps),
    alertRoutes(deps),
    triageRoutes(deps),
    triageRuleRoutes(deps),
    vexRoutes(deps),
    compareRoutes(deps),
    scanReadRoutes(deps),
    metricsRoutes(deps),
    usageRoutes(deps), // before projectRoutes: /v1/dependencies/usages is its own route
    advisoryRoutes(deps),
    projectRoutes(deps),
    exportRoutes(deps),
    webhookRoutes(deps),
    deliveryRoutes(deps),
    registrationTokenRoutes(deps),
    hostRoutes(deps),
    enrollmentTokenRoutes(deps),
    gatewayRoutes(deps),
    mcpRoutes(deps),
    webAppRoutes(deps, deps.webRoot),
  ]) {
    app.use(router.routes());
  }
  return app;
}
