// Which IP addresses a webhook may be sent to. Ranges are matched with Node's net.BlockList, one list
// per family: a BlockList matches an IPv4 rule against IPv4-mapped IPv6 addresses and the other way round (even ::/0
// matches every IPv4 address), so IPv4 addresses are only ever checked against IPv4 rules and IPv6 against IPv6.
//
// Decisions (documented in the README's webhook section):
// - IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96,
//   6to4 2002::/16) are refused unless their IPv6 range is allowed, and even then the IPv4 address inside is checked
//   as IPv4: allowing 64:ff9b::/96 (a DNS64 network) does not open 10.0.0.0/8 or the metadata service through NAT64.
// - 169.254.0.0/16, fe80::/10 and fd00:ec2::254 (cloud metadata services and link-local) are refused always; an
//   allowed CIDR never re-allows them, and one that lies wholly inside them is a configuration error.
import net from 'node:net';

export interface AddressRange {
  cidr: string;
  /** "a private address": how a user-facing message names what the address is. */
  what: string;
  /** Never allowed, whatever WEBHOOKS_ALLOWED_CIDRS says. */
  always?: boolean;
  /** Where an IPv4 address sits inside this IPv6 range (16-bit group index of its first half). */
  embedsIPv4At?: number;
}

/** Refused ranges, most specific first (the first match names the reason). */
export const REFUSED_IPV4: readonly AddressRange[] = [
  { cidr: '169.254.0.0/16', what: 'a link-local address (where cloud metadata services live)', always: true },
  { cidr: '0.0.0.0/8', what: 'a "this network" address' },
  { cidr: '10.0.0.0/8', what: 'a private address' },
  { cidr: '100.64.0.0/10', what: 'a carrier-grade NAT address' },
  { cidr: '127.0.0.0/8', what: 'a loopback address' },
  { cidr: '172.16.0.0/12', what: 'a private address' },
  { cidr: '192.0.0.0/24', what: 'an IETF protocol assignment address' },
  { cidr: '192.0.2.0/24', what: 'a documentation address' },
  { cidr: '192.88.99.0/24', what: 'a 6to4 relay anycast address' },
  { cidr: '192.168.0.0/16', what: 'a private address' },
  { cidr: '198.18.0.0/15', what: 'a benchmarking address' },
  { cidr: '198.51.100.0/24', what: 'a documentation address' },
  { cidr: '203.0.113.0/24', what: 'a documentation address' },
  { cidr: '224.0.0.0/4', what: 'a multicast address' },
  { cidr: '255.255.255.255/32', what: 'the broadcast address' },
  { cidr: '240.0.0.0/4', what: 'a reserved address' },
];

export const REFUSED_IPV6: readonly AddressRange[] = [
  { cidr: 'fe80::/10', what: 'a link-local address', always: true },
  { cidr: 'fd00:ec2::254/128', what: 'a cloud metadata service address', always: true },
  { cidr: '::/128', what: 'the unspecified address' },
  { cidr: '::1/128', what: 'a loopback address' },
  { cidr: '::ffff:0:0/96', what: 'an IPv4-mapped address', embedsIPv4At: 6 },
  { cidr: '::/96', what: 'an IPv4-compatible address', embedsIPv4At: 6 },
  { cidr: '64:ff9b::/96', what: 'a NAT64 address', embedsIPv4At: 6 },
  { cidr: '64:ff9b:1::/48', what: 'a local-use NAT64 address' },
  { cidr: '100::/64', what: 'a discard-only address' },
  { cidr: '2001::/32', what: 'a Teredo address' },
  { cidr: '2001:db8::/32', what: 'a documentation address' },
  { cidr: '2002::/16', what: 'a 6to4 address', embedsIPv4At: 1 },
  { cidr: 'fc00::/7', what: 'a unique local address' },
  { cidr: 'fec0::/10', what: 'a site-local address' },
  { cidr: 'ff00::/8', what: 'a multicast address' },
];

export type Family = 4 | 6;

export interface Cidr {
  family: Family;
  address: string;
  prefix: number;
  text: string;
}

/** "10.0.0.0/8", "fd00::/8" or a bare address (a single host); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split('/');
  const family = net.isIP(address ?? '');
  if (extra !== undefined || (family !== 4 && family !== 6) || address.includes('%')) return null;
  const max = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { family, address, prefix, text: `${address}/${prefix}` };
}

function blockList(cidrs: readonly Cidr[]): net.BlockList {
  const list = new net.BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

interface CompiledRange extends AddressRange {
  list: net.BlockList;
}

function compile(ranges: readonly AddressRange[]): CompiledRange[] {
  return ranges.map((r) => ({ ...r, list: blockList([parseCidr(r.cidr)!]) }));
}

const compiled = { 4: compile(REFUSED_IPV4), 6: compile(REFUSED_IPV6) };

/** The allowed CIDRs as one BlockList per family (built once per array). */
export interface AllowList {
  4: net.BlockList;
  6: net.BlockList;
}

const allowCache = new WeakMap<readonly string[], AllowList>();

/** Throws a plain Error naming the bad entry; the caller names the setting. */
export function compileAllowList(cidrs: readonly string[]): AllowList {
  const cached = allowCache.get(cidrs);
  if (cached) return cached;
  const parsed: Cidr[] = [];
  for (const text of cidrs) {
    const c = parseCidr(text);
    if (!c) throw new Error(`"${text}" is not an IPv4 or IPv6 CIDR (like 10.0.0.0/8 or fd00::/8)`);
    const inside = compiled[c.family].find(
      (r) =>
        r.always &&
        r.list.check(c.address, c.family === 4 ? 'ipv4' : 'ipv6') &&
        c.prefix >= Number(r.cidr.split('/')[1]),
    );
    if (inside) throw new Error(`${c.text} is inside ${inside.cidr} (${inside.what}), which is refused always`);
    parsed.push(c);
  }
  const allow: AllowList = {
    4: blockList(parsed.filter((c) => c.family === 4)),
    6: blockList(parsed.filter((c) => c.family === 6)),
  };
  allowCache.set(cidrs, allow);
  return allow;
}

/** Why an address is refused, or null when it may be used. */
export interface AddressRefusal {
  address: string;
  range: AddressRange;
  /** The IPv4 address inside an allowed IPv6 range (IPv4-mapped, NAT64, ...) that was refused, when that was why. */
  inner?: AddressRefusal;
}

/** The 8 groups of an IPv6 address (already valid by net.isIP, zone removed), a dotted IPv4 tail included. */
export function ipv6Groups(address: string): number[] {
  const hex = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_m, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
  );
  const [head, tail] = hex.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

function embeddedIPv4(address: string, at: number): string {
  const g = ipv6Groups(address);
  return [g[at] >> 8, g[at] & 255, g[at + 1] >> 8, g[at + 1] & 255].join('.');
}

/** Checks one address (a literal IP: anything else is refused as unusable by the caller). */
export function refusalOf(address: string, allow: AllowList): AddressRefusal | null {
  const bare = address.split('%')[0];
  const family = net.isIP(bare);
  if (family !== 4 && family !== 6) throw new Error(`not an IP address: ${address}`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const range = compiled[family].find((r) => r.list.check(bare, type));
  if (!range) return null;
  if (range.always || !allow[family].check(bare, type)) return { address, range };
  if (range.embedsIPv4At === undefined) return null;
  const inner = refusalOf(embeddedIPv4(bare, range.embedsIPv4At), allow);
  return inner ? { address, range, inner } : null;
}
