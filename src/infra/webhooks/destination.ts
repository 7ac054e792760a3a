// Webhook destinations: https only; the host is resolved once and the connection made to that
// checked address (no redirects, no proxy); loopback, private, link-local, CGNAT, unique local and IPv4-mapped
// ranges are refused unless listed in WEBHOOKS_ALLOWED_CIDRS; 169.254.0.0/16 and fe80::/10 always. The ranges and
// their decisions are in src/domain/webhooks/addresses.ts.
//
// A name that resolves to several addresses is refused if any one of them is refused (a round-robin name mixing a
// public and a private address is how DNS rebinding is done); otherwise the first IPv4 address in the resolver's
// order is used, else the first IPv6 one: one address is connected to (no happy eyeballs), and IPv4 is the family
// that is routable nearly everywhere (containers often lack IPv6 routes while their resolver returns AAAA records).
import { X509Certificate } from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import { compileAllowList, refusalOf, type AddressRefusal } from '../../domain/webhooks/addresses';

/** Resolves a host name to every address it has (dns.lookup with all: true, in production). */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface DestinationPolicy {
  /** CIDRs (IPv4 and IPv6) allowed although in a refused range (WEBHOOKS_ALLOWED_CIDRS, comma-separated). */
  allowedCidrs: string[];
  /** PEM certificates trusted beside Node's bundled CAs (the file WEBHOOKS_CA_FILE names). */
  extraCa?: string;
  resolve: Resolver;
}

/**
 * Why a destination was refused: `syntax` (the URL itself), `policy` (an address in a refused range) or `dns` (the
 * name did not resolve: at delivery time that may pass, so a caller may retry it).
 */
export type RefusalKind = 'syntax' | 'policy' | 'dns';

/** A refused destination, with the reason a user can act on (used as the 422 message and the delivery error). */
export class DestinationRefused extends Error {
  readonly kind: RefusalKind;
  constructor(message: string, kind: RefusalKind = 'policy') {
    super(message);
    this.name = 'DestinationRefused';
    this.kind = kind;
  }
}

/** A destination whose address was checked: deliveries connect to `address`, with `url.hostname` for TLS. */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
}

export const MAX_URL_LENGTH = 2048;
const ALLOW_HINT = 'allow it with WEBHOOKS_ALLOWED_CIDRS';

/** The policy from WEBHOOKS_ALLOWED_CIDRS and WEBHOOKS_CA_FILE (throws, naming the setting, when one is malformed). */
export function policyFromEnv(env: NodeJS.ProcessEnv = process.env): DestinationPolicy {
  const allowedCidrs = (env.WEBHOOKS_ALLOWED_CIDRS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  try {
    compileAllowList(allowedCidrs);
  } catch (err) {
    throw new Error(`WEBHOOKS_ALLOWED_CIDRS: ${(err as Error).message}`);
  }
  const caFile = env.WEBHOOKS_CA_FILE?.trim();
  return { allowedCidrs, ...(caFile ? { extraCa: readCaFile(caFile) } : {}), resolve: systemResolver };
}

function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `WEBHOOKS_CA_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0) throw new Error(`WEBHOOKS_CA_FILE: ${file} holds no PEM certificate`);
  certs.forEach((cert, i) => {
    try {
      new X509Certificate(cert);
    } catch {
      throw new Error(`WEBHOOKS_CA_FILE: certificate ${i + 1} in ${file} cannot be parsed`);
    }
  });
  return pem;
}

/** dns.lookup (the system resolver, as every other connection of the process uses), every address, in its order. */
export const systemResolver: Resolver = async (host) => {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Syntax only (https, a host, no credentials, at most 2048 characters): throws DestinationRefused. */
export function parseDestination(url: string): URL {
  const refuse = (m: string) => new DestinationRefused(m, 'syntax');
  if (typeof url !== 'string' || url.trim() === '') throw refuse('the URL is empty');
  if (url.length > MAX_URL_LENGTH) throw refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('not a valid URL');
  }
  if (parsed.protocol !== 'https:') throw refuse(`https only (${parsed.protocol.replace(/:$/, '')}:// is refused)`);
  if (parsed.username !== '' || parsed.password !== '')
    throw refuse('credentials in the URL are refused (no user:password@)');
  if (hostOf(parsed) === '') throw refuse('the URL has no host');
  // What is stored and parsed again at delivery is the serialized form, which percent-encoding and punycode lengthen.
  if (parsed.href.length > MAX_URL_LENGTH)
    throw refuse(`the URL is longer than ${MAX_URL_LENGTH} characters once encoded`);
  return parsed;
}

/** The URL's host as an address or a name: IPv6 literals without their brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function describe(r: AddressRefusal): string {
  const what = `${r.range.what} (${r.range.cidr})`;
  if (r.inner) return `${what} holding ${r.inner.address}, ${describe(r.inner)}`;
  return r.range.always ? `${what}, which is refused always` : `${what}; ${ALLOW_HINT}`;
}

/** parseDestination, then resolve once and check every address; throws DestinationRefused. */
export async function checkDestination(url: string, policy: DestinationPolicy): Promise<CheckedDestination> {
  const parsed = parseDestination(url);
  const host = hostOf(parsed);
  const allow = compileAllowList(policy.allowedCidrs);
  const literal = net.isIP(host);
  if (literal === 4 || literal === 6) {
    const refusal = refusalOf(host, allow);
    if (refusal) throw new DestinationRefused(`${host} is ${describe(refusal)}`);
    return { url: parsed, address: host, family: literal };
  }
  let found: Array<{ address: string }>;
  try {
    found = await policy.resolve(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const why =
      code === 'ENOTFOUND'
        ? 'no such name'
        : code === 'EAI_AGAIN'
          ? 'temporary DNS failure'
          : (code ?? (err instanceof Error ? err.message : String(err)));
    throw new DestinationRefused(`${host} could not be resolved (${why})`, 'dns');
  }
  if (!Array.isArray(found) || found.length === 0)
    throw new DestinationRefused(`${host} resolves to no address`, 'dns');
  const addresses: Array<{ address: string; family: 4 | 6 }> = [];
  for (const entry of found) {
    const address = typeof entry?.address === 'string' ? entry.address : '';
    const family = net.isIP(address);
    if (family !== 4 && family !== 6)
      throw new DestinationRefused(`${host} resolves to something that is not an IP address`, 'dns');
    const refusal = refusalOf(address, allow);
    if (refusal) throw new DestinationRefused(`${host} resolves to ${address}, ${describe(refusal)}`);
    addresses.push({ address, family });
  }
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
  return { url: parsed, ...chosen };
}
