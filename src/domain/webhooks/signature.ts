// Webhook signatures (platform.md §8): X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.
// SKELETON (the lead's seam): the exported names are the contract.

/** The X-Svc-Signature header value for a body sent at unix time `t` (seconds). */
export function signatureHeader(secret: string, body: string, t: number): string {
  void secret;
  void body;
  void t;
  throw new Error('not implemented yet');
}

/**
 * What a receiver does: parse the header, recompute the HMAC over "<t>.<raw body>", compare in constant time, and
 * refuse a timestamp more than toleranceS (default 300) from now (unix seconds). Several v1= values are accepted
 * (any one matching).
 */
export function verifySignature(secret: string, header: string, body: string, opts: { now: number; toleranceS?: number }): boolean {
  void secret;
  void header;
  void body;
  void opts;
  throw new Error('not implemented yet');
}
