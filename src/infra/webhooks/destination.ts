// Webhook destinations (platform.md §8): https only; the host is resolved once and the connection made to that
// checked address (no redirects, no proxy); loopback, private, link-local, CGNAT, unique local and IPv4-mapped
// ranges are refused unless listed in WEBHOOKS_ALLOWED_CIDRS; 169.254.0.0/16 and fe80::/10 always.
// SKELETON (the lead's seam): the exported names and types are the contract; the bodies are being written.

/** Resolves a host name to every address it has (dns.lookup with all: true, in production). */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface DestinationPolicy {
  /** CIDRs (IPv4 and IPv6) allowed although in a refused range (WEBHOOKS_ALLOWED_CIDRS, comma-separated). */
  allowedCidrs: string[];
  /** PEM certificates trusted beside Node's bundled CAs (the file WEBHOOKS_CA_FILE names). */
  extraCa?: string;
  resolve: Resolver;
}

/** A refused destination, with the reason a user can act on (used as the 422 message and the delivery error). */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/** A destination whose address was checked: deliveries connect to `address`, with `url.hostname` for TLS. */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** The policy from WEBHOOKS_ALLOWED_CIDRS and WEBHOOKS_CA_FILE (throws, naming the setting, when one is malformed). */
export function policyFromEnv(env: NodeJS.ProcessEnv = process.env): DestinationPolicy {
  void env;
  throw new Error('not implemented yet');
}

/** Syntax only (https, a host, no credentials, at most 2048 characters): throws DestinationRefused. */
export function parseDestination(url: string): URL {
  void url;
  throw new Error('not implemented yet');
}

/** parseDestination, then resolve once and check every address; throws DestinationRefused. */
export async function checkDestination(url: string, policy: DestinationPolicy): Promise<CheckedDestination> {
  void url;
  void policy;
  throw new Error('not implemented yet');
}
