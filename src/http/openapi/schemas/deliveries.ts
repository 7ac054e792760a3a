// Response schemas of the delivery log of a webhook (platform.md §8): GET /v1/webhooks/{webhookId}/deliveries (src/http/webhooks/deliveries.ts).
export const deliverySchemas = {};
