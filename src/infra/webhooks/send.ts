// One webhook POST to a checked destination (platform.md §8). SKELETON (the lead's seam): the contract is below.
import type { CheckedDestination, DestinationPolicy } from './destination';

export interface SendResult {
  /** The response status; the response body is read (at most a few KB) and discarded. */
  statusCode: number;
  durationMs: number;
}

/**
 * POSTs `body` to the destination's checked address (TLS verified against the URL's host name and Node's CAs plus
 * policy.extraCa; no redirects followed; no proxy), with the headers given plus Content-Type: application/json and a
 * User-Agent. Resolves with any status (the caller decides: 2xx ends a delivery); rejects on a network error or
 * after timeoutMs, with a message fit for the delivery log.
 */
export async function postWebhook(dest: CheckedDestination, body: string, headers: Record<string, string>, policy: DestinationPolicy, opts: { timeoutMs: number }): Promise<SendResult> {
  void dest;
  void body;
  void headers;
  void policy;
  void opts;
  throw new Error('not implemented yet');
}
