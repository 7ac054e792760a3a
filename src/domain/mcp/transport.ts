// insecure_transport: a server reached over plain http on a host that is not loopback. Loopback:
// 127.0.0.0/8, ::1 (and IPv4-mapped ::ffff:127.x.y.z), `localhost` and names under `.localhost` (RFC 6761: they
// resolve to loopback). https, ws(s) and anything that does not parse as a URL are not flagged.
import ipaddr from 'ipaddr.js';

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(h)) return false;
  const addr = ipaddr.process(h); // an IPv4-mapped IPv6 address is read as its IPv4 address
  return addr.range() === 'loopback';
}

/** The host of URL when it is plain http to a non-loopback host, else null. */
export function insecureHttpHost(url: string | null | undefined): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:') return null;
  return isLoopbackHost(u.hostname) ? null : u.hostname;
}
