// Network scopes of gateways: CIDRs in IPv4 or IPv6, each a network address with its prefix length
// ("10.0.0.0/8", never "10.0.0.1/8"). Addresses are checked strictly by Node (net.isIP: dotted decimal without
// leading zeros, no zone index), prefixes by hand, masking and containment by ipaddr.js. IPv6 is written back in
// RFC 5952's form (lowercase, zeros compressed; IPv4-mapped ones as ::ffff:a.b.c.d), so a scope reads one way only.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface Cidr {
  family: 4 | 6;
  /** The network address as parsed (ipaddr.js), for containment. */
  address: ipaddr.IPv4 | ipaddr.IPv6;
  prefix: number;
  /** The canonical text: "10.0.0.0/8", "2001:db8::/32". */
  text: string;
}

/** Longest CIDR text accepted ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128" is 50). */
export const MAX_CIDR_LENGTH = 64;

/** CIDRs of a gateway's network scope, in an enrollment or an approval (this project's bound). */
export const MAX_SCOPE_CIDRS = 100;

export class CidrError extends Error {}

const FORM = /^([^/]+)\/(0|[1-9][0-9]{0,2})$/;

function addressText(a: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (a.kind() === 'ipv4') return a.toString();
  const v6 = a as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

/** Parses one CIDR; throws CidrError saying what is wrong with it. */
export function parseCidr(s: unknown): Cidr {
  if (typeof s !== 'string') throw new CidrError('must be a string');
  if (s.length === 0) throw new CidrError('must not be empty');
  if (s.length > MAX_CIDR_LENGTH) throw new CidrError(`at most ${MAX_CIDR_LENGTH} characters`);
  const shown = JSON.stringify(s);
  const m = FORM.exec(s);
  if (!m) throw new CidrError(`${shown} is not an address followed by /prefix`);
  const [, addr, bits] = m;
  const family = addr.includes('%') ? 0 : net.isIP(addr);
  if (family === 0) throw new CidrError(`${shown}: ${JSON.stringify(addr)} is not an IPv4 or IPv6 address`);
  const prefix = Number(bits);
  const max = family === 4 ? 32 : 128;
  if (prefix > max) throw new CidrError(`${shown}: an IPv${family} prefix is at most /${max}`);
  const network = family === 4 ? ipaddr.IPv4.networkAddressFromCIDR(s) : ipaddr.IPv6.networkAddressFromCIDR(s);
  const given = ipaddr.parse(addr);
  if (network.toNormalizedString() !== given.toNormalizedString()) {
    throw new CidrError(
      `${shown} is not a network address: it has bits set past /${prefix} (the network is ${addressText(network)}/${prefix})`,
    );
  }
  return { family: family as 4 | 6, address: network, prefix, text: `${addressText(network)}/${prefix}` };
}

/** Whether every address of `inner` is in `outer` (never across families). */
export function cidrWithin(inner: Cidr, outer: Cidr): boolean {
  if (inner.family !== outer.family || inner.prefix < outer.prefix) return false;
  return (inner.address as ipaddr.IPv4).match(outer.address as ipaddr.IPv4, outer.prefix);
}

/** A list of CIDRs as requests send it: 1 to `max` items, each parsed; duplicates (after normalising) folded. */
export function parseCidrList(v: unknown, max: number): Cidr[] {
  if (!Array.isArray(v)) throw new CidrError(`must be an array of 1 to ${max} CIDRs`);
  if (v.length === 0) throw new CidrError(`must hold at least one CIDR`);
  if (v.length > max) throw new CidrError(`at most ${max} CIDRs`);
  const out = new Map<string, Cidr>();
  v.forEach((item, i) => {
    let c: Cidr;
    try {
      c = parseCidr(item);
    } catch (err) {
      throw new CidrError(`[${i}]: ${(err as Error).message}`);
    }
    if (!out.has(c.text)) out.set(c.text, c);
  });
  return [...out.values()];
}
