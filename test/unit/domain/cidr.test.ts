// Gateway network scopes: CIDRs in IPv4 or IPv6, each a network address with its prefix, written back
// in one canonical form; containment for approvals.
import { CidrError, cidrWithin, parseCidr, parseCidrList } from '../../../src/domain/hosts/cidr';

describe('parseCidr', () => {
  test.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.128/25', '192.168.1.128/25'],
    ['10.1.2.3/32', '10.1.2.3/32'],
    ['::/0', '::/0'],
    ['::1/128', '::1/128'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:db8:0:0:0:0:0:0/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0001:0000:0000:0000/80', '2001:db8:0:0:1::/80'], // RFC 5952: the longest run of zeros is compressed
    ['fe80::/10', 'fe80::/10'],
    ['::ffff:10.0.0.0/104', '::ffff:10.0.0.0/104'],
    ['::ffff:a00:0/104', '::ffff:10.0.0.0/104'],
  ])('%s is accepted as %s', (given, canonical) => {
    const c = parseCidr(given);
    expect(c.text).toBe(canonical);
    expect(parseCidr(c.text).text).toBe(canonical); // canonical text is a fixed point
  });

  test.each([
    ['10.0.0.0/33', /prefix is at most \/32/],
    ['::1/129', /prefix is at most \/128/],
    ['10.0.0.1/8', /not a network address.*10\.0\.0\.0\/8/],
    ['2001:db8::1/32', /not a network address.*2001:db8::\/32/],
    ['abc', /not an address followed by \/prefix/],
    ['', /must not be empty/],
    ['10.0.0.0', /not an address followed by \/prefix/],
    ['10.0.0.0/', /not an address followed by \/prefix/],
    ['10.0.0.0/08', /not an address followed by \/prefix/],
    ['10.0.0.0/-1', /not an address followed by \/prefix/],
    ['10.0.0.0/8/8', /not an IPv4 or IPv6 address|not an address/],
    ['010.0.0.0/8', /not an IPv4 or IPv6 address/],
    ['1.2.3/8', /not an IPv4 or IPv6 address/],
    ['256.0.0.0/8', /not an IPv4 or IPv6 address/],
    ['fe80::%eth0/64', /not an IPv4 or IPv6 address/],
    [' 10.0.0.0/8', /not an IPv4 or IPv6 address/],
    ['10.0.0.0/8 ', /not an address followed by \/prefix/],
    ['example.com/8', /not an IPv4 or IPv6 address/],
    ['1'.repeat(65), /at most 64 characters/],
  ])('%j is refused (%s)', (given, message) => {
    expect(() => parseCidr(given)).toThrow(CidrError);
    expect(() => parseCidr(given)).toThrow(message);
  });

  test.each([5, null, undefined, {}, ['10.0.0.0/8'], true])('%j (not a string) is refused', (v) => {
    expect(() => parseCidr(v)).toThrow(/must be a string/);
  });
});

describe('cidrWithin', () => {
  const within = (a: string, b: string) => cidrWithin(parseCidr(a), parseCidr(b));
  test('a network inside another, or equal to it', () => {
    expect(within('10.1.0.0/16', '10.0.0.0/8')).toBe(true);
    expect(within('10.0.0.0/8', '10.0.0.0/8')).toBe(true);
    expect(within('10.255.255.255/32', '10.0.0.0/8')).toBe(true);
    expect(within('0.0.0.0/0', '0.0.0.0/0')).toBe(true);
    expect(within('2001:db8:1::/48', '2001:db8::/32')).toBe(true);
    expect(within('::1/128', '::/0')).toBe(true);
  });
  test('wider, beside, or of the other family: not within', () => {
    expect(within('10.0.0.0/8', '10.0.0.0/16')).toBe(false);
    expect(within('11.0.0.0/16', '10.0.0.0/8')).toBe(false);
    expect(within('10.0.0.0/8', '::/0')).toBe(false);
    expect(within('::ffff:10.0.0.0/104', '10.0.0.0/8')).toBe(false);
    expect(within('2001:db9::/32', '2001:db8::/32')).toBe(false);
  });
});

describe('parseCidrList', () => {
  test('1 to max items, duplicates folded after normalising, in the order first given', () => {
    expect(parseCidrList(['2001:DB8::/32', '10.0.0.0/8', '2001:db8::/32'], 3).map((c) => c.text)).toEqual([
      '2001:db8::/32',
      '10.0.0.0/8',
    ]);
  });
  test('refusals name the item', () => {
    expect(() => parseCidrList([], 3)).toThrow(/at least one/);
    expect(() => parseCidrList('10.0.0.0/8', 3)).toThrow(/must be an array/);
    expect(() => parseCidrList(['10.0.0.0/8', '10.0.0.0/8', '10.0.0.0/8', '10.0.0.0/8'], 3)).toThrow(/at most 3/);
    expect(() => parseCidrList(['10.0.0.0/8', '10.0.0.1/8'], 3)).toThrow(/^\[1\]: .*not a network address/);
  });
});
