// Webhook destinations: URL syntax, every refused range (IPv4 and IPv6) through an injected resolver that is the only
// thing called, the always-refused ranges that no allowed CIDR re-opens, IPv6 forms carrying an IPv4 address, DNS
// rebinding by round robin, and the settings. Nothing here opens a connection: checks only.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ipv6Groups, parseCidr } from '../../../src/domain/webhooks/addresses';
import {
  checkDestination,
  DestinationRefused,
  parseDestination,
  policyFromEnv,
  systemResolver,
  type DestinationPolicy,
  type Resolver,
} from '../../../src/infra/webhooks/destination';

function resolverOf(...addresses: string[]): jest.Mock<ReturnType<Resolver>, Parameters<Resolver>> {
  return jest.fn(async () =>
    addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 })),
  );
}

function policy(resolve: Resolver, allowedCidrs: string[] = []): DestinationPolicy {
  return { allowedCidrs, resolve };
}

async function refusal(url: string, p: DestinationPolicy): Promise<DestinationRefused> {
  const err = await checkDestination(url, p).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DestinationRefused);
  return err as DestinationRefused;
}

describe('parseDestination', () => {
  it('accepts https URLs with a port, path and query, and normalizes the host', () => {
    expect(parseDestination('https://hooks.example.com:8443/a/b?c=d').href).toBe(
      'https://hooks.example.com:8443/a/b?c=d',
    );
    expect(parseDestination('HTTPS://Hooks.Example.COM/x').hostname).toBe('hooks.example.com');
    expect(parseDestination('https://0x7f.1/').hostname).toBe('127.0.0.1'); // the checks see the canonical address
    expect(parseDestination('https://[::1]/').hostname).toBe('[::1]');
  });

  it.each([
    ['http', 'http://hooks.example.com/', /^https only \(http:\/\/ is refused\)$/],
    ['ftp', 'ftp://hooks.example.com/', /https only/],
    ['file', 'file:///etc/passwd', /https only/],
    ['no scheme', 'hooks.example.com/x', /not a valid URL/],
    ['garbage', 'https://exa mple.com/', /not a valid URL/],
    ['an invalid IPv6 literal', 'https://[fe80::1%25eth0]/', /not a valid URL/],
    ['empty', '', /empty/],
    ['blank', '   ', /empty/],
    ['userinfo', 'https://user:pass@hooks.example.com/', /credentials/],
    ['user only', 'https://user@hooks.example.com/', /credentials/],
    ['too long', `https://hooks.example.com/${'a'.repeat(2048)}`, /longer than 2048/],
    [
      'too long once encoded',
      `https://hooks.example.com/${' '.repeat(1000)}x`,
      /longer than 2048 characters once encoded/,
    ],
  ])('refuses %s', (_name, url, message) => {
    let err: unknown;
    try {
      parseDestination(url);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DestinationRefused);
    expect((err as DestinationRefused).kind).toBe('syntax');
    expect((err as Error).message).toMatch(message);
  });

  it('accepts exactly 2048 characters', () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
    expect(url).toHaveLength(2048);
    expect(parseDestination(url).href).toBe(url);
  });

  it('refuses a value that is not a string', () => {
    expect(() => parseDestination(42 as unknown as string)).toThrow(DestinationRefused);
    expect(() => parseDestination(undefined as unknown as string)).toThrow(DestinationRefused);
  });
});

describe('checkDestination: refused ranges, through an injected resolver', () => {
  const refusedIPv4: Array<[string, string]> = [
    ['0.0.0.0', '0.0.0.0/8'],
    ['0.1.2.3', '0.0.0.0/8'],
    ['10.0.0.5', '10.0.0.0/8'],
    ['10.255.255.255', '10.0.0.0/8'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['100.127.255.254', '100.64.0.0/10'],
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.255.0.9', '127.0.0.0/8'],
    ['172.16.0.1', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.0.0.8', '192.0.0.0/24'],
    ['192.0.2.1', '192.0.2.0/24'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['198.18.0.1', '198.18.0.0/15'],
    ['198.19.255.1', '198.18.0.0/15'],
    ['198.51.100.7', '198.51.100.0/24'],
    ['203.0.113.9', '203.0.113.0/24'],
    ['224.0.0.1', '224.0.0.0/4'],
    ['239.255.255.250', '224.0.0.0/4'],
    ['240.0.0.1', '240.0.0.0/4'],
    ['255.255.255.255', '255.255.255.255/32'],
  ];
  const refusedIPv6: Array<[string, string]> = [
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['::ffff:8.8.8.8', '::ffff:0:0/96'],
    ['::ffff:7f00:1', '::ffff:0:0/96'],
    ['::8.8.8.8', '::/96'],
    ['64:ff9b::808:808', '64:ff9b::/96'],
    ['64:ff9b:1::1', '64:ff9b:1::/48'],
    ['100::1', '100::/64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32'],
    ['2001:db8::1', '2001:db8::/32'],
    ['2002:808:808::1', '2002::/16'],
    ['fc00::1', 'fc00::/7'],
    ['fd12:3456:789a::1', 'fc00::/7'],
    ['fec0::1', 'fec0::/10'],
    ['ff02::1', 'ff00::/8'],
    ['FF05::1:3', 'ff00::/8'],
  ];

  it.each([...refusedIPv4, ...refusedIPv6])(
    'a name resolving to %s is refused (%s), and nothing else is called',
    async (address, cidr) => {
      const resolve = resolverOf(address);
      const err = await refusal('https://hooks.example.com/in', policy(resolve));
      expect(err.kind).toBe('policy');
      expect(err.message).toContain(`hooks.example.com resolves to ${address}, `);
      expect(err.message).toContain(`(${cidr}); allow it with WEBHOOKS_ALLOWED_CIDRS`);
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(resolve).toHaveBeenCalledWith('hooks.example.com');
    },
  );

  it('names the reason a user can act on', async () => {
    expect((await refusal('https://hooks.internal/', policy(resolverOf('10.0.0.5')))).message).toBe(
      'hooks.internal resolves to 10.0.0.5, a private address (10.0.0.0/8); allow it with WEBHOOKS_ALLOWED_CIDRS',
    );
    expect((await refusal('https://10.0.0.5/', policy(resolverOf()))).message).toBe(
      '10.0.0.5 is a private address (10.0.0.0/8); allow it with WEBHOOKS_ALLOWED_CIDRS',
    );
  });

  it.each([...refusedIPv4, ...refusedIPv6.filter(([a]) => !a.includes('.'))])(
    'an IP literal %s is checked as is, without resolving',
    async (address, cidr) => {
      const resolve = resolverOf('8.8.8.8');
      const host = address.includes(':') ? `[${address}]` : address;
      const err = await refusal(`https://${host}:8443/x`, policy(resolve));
      expect(err.message).toContain(`(${cidr}); allow it with WEBHOOKS_ALLOWED_CIDRS`);
      expect(resolve).not.toHaveBeenCalled();
    },
  );

  it.each([
    ['169.254.169.254', '169.254.0.0/16'],
    ['169.254.0.1', '169.254.0.0/16'],
    ['fe80::1', 'fe80::/10'],
    ['fe80::1%eth0', 'fe80::/10'],
    ['febf:ffff::1', 'fe80::/10'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
  ])('%s is refused always, even when every address is allowed', async (address, cidr) => {
    const everything = ['0.0.0.0/0', '::/0', '169.0.0.0/8', 'fe00::/8'];
    const err = await refusal('https://metadata.example/', policy(resolverOf(address), everything));
    expect(err.message).toContain(`(${cidr}), which is refused always`);
    expect(err.message).not.toContain('WEBHOOKS_ALLOWED_CIDRS');
  });

  it('an IPv4-mapped address is refused even when its IPv4 address is allowed; allowed with ::ffff:0:0/96 too', async () => {
    const err = await refusal('https://[::ffff:127.0.0.1]/', policy(resolverOf(), ['127.0.0.0/8']));
    expect(err.message).toBe(
      '::ffff:7f00:1 is an IPv4-mapped address (::ffff:0:0/96); allow it with WEBHOOKS_ALLOWED_CIDRS',
    );
    const ok = await checkDestination(
      'https://mapped.example/',
      policy(resolverOf('::ffff:127.0.0.1'), ['127.0.0.0/8', '::ffff:0:0/96']),
    );
    expect(ok).toMatchObject({ address: '::ffff:127.0.0.1', family: 6 });
  });

  it('an allowed IPv6 range that carries an IPv4 address has that address checked as IPv4', async () => {
    const mapped = policy(resolverOf('::ffff:10.0.0.5'), ['::ffff:0:0/96']);
    expect((await refusal('https://m.example/', mapped)).message).toBe(
      'm.example resolves to ::ffff:10.0.0.5, an IPv4-mapped address (::ffff:0:0/96) holding 10.0.0.5, a private address (10.0.0.0/8); allow it with WEBHOOKS_ALLOWED_CIDRS',
    );
    // A DNS64 network allows 64:ff9b::/96: public IPv4 hosts through NAT64 work, private and metadata ones do not.
    const nat64 = ['64:ff9b::/96'];
    await expect(checkDestination('https://[64:ff9b::808:808]/', policy(resolverOf(), nat64))).resolves.toMatchObject({
      address: '64:ff9b::808:808',
    });
    expect((await refusal('https://[64:ff9b::a00:1]/', policy(resolverOf(), nat64))).message).toContain(
      'holding 10.0.0.1, a private address (10.0.0.0/8)',
    );
    expect(
      (await refusal('https://[64:ff9b::a9fe:a9fe]/', policy(resolverOf(), [...nat64, '0.0.0.0/0']))).message,
    ).toContain(
      'holding 169.254.169.254, a link-local address (where cloud metadata services live) (169.254.0.0/16), which is refused always',
    );
    expect(
      (await refusal('https://[::ffff:169.254.169.254]/', policy(resolverOf(), ['::/0', '0.0.0.0/0']))).message,
    ).toContain('which is refused always');
    // 6to4 carries its IPv4 address in groups 2 and 3.
    expect((await refusal('https://[2002:c0a8:101::1]/', policy(resolverOf(), ['2002::/16']))).message).toContain(
      'holding 192.168.1.1, a private address',
    );
    await expect(
      checkDestination('https://[2002:808:808::1]/', policy(resolverOf(), ['2002::/16'])),
    ).resolves.toMatchObject({ family: 6 });
    // An allowed ::1 is a loopback address, not an IPv4-compatible 0.0.0.1.
    await expect(checkDestination('https://[::1]/', policy(resolverOf(), ['::1/128']))).resolves.toMatchObject({
      address: '::1',
    });
  });

  it('a name resolving to a public and a private address is refused (rebinding by round robin), in either order', async () => {
    for (const answer of [
      ['93.184.216.34', '10.0.0.1'],
      ['10.0.0.1', '93.184.216.34'],
      ['2606:2800:220:1::1', 'fd00::1'],
      ['93.184.216.34', '169.254.169.254'],
    ]) {
      const resolve = resolverOf(...answer);
      const err = await refusal('https://rebind.example/', policy(resolve));
      expect(err.message).toMatch(/^rebind\.example resolves to (10\.0\.0\.1|fd00::1|169\.254\.169\.254), /);
      expect(resolve).toHaveBeenCalledTimes(1);
    }
  });

  it('public addresses pass; the first IPv4 one is chosen, else the first IPv6 one', async () => {
    const url = 'https://hooks.example.com/in?x=1';
    await expect(checkDestination(url, policy(resolverOf('93.184.216.34')))).resolves.toEqual({
      url: new URL(url),
      address: '93.184.216.34',
      family: 4,
    });
    await expect(
      checkDestination(url, policy(resolverOf('2606:2800:220:1::1', '2606:4700::1111', '93.184.216.34', '1.1.1.1'))),
    ).resolves.toMatchObject({ address: '93.184.216.34', family: 4 });
    await expect(
      checkDestination(url, policy(resolverOf('2606:2800:220:1::1', '2606:4700::1111'))),
    ).resolves.toMatchObject({ address: '2606:2800:220:1::1', family: 6 });
    await expect(checkDestination('https://[2606:4700::1111]/', policy(resolverOf()))).resolves.toMatchObject({
      address: '2606:4700::1111',
      family: 6,
    });
    await expect(checkDestination('https://8.8.8.8/', policy(resolverOf()))).resolves.toMatchObject({
      address: '8.8.8.8',
      family: 4,
    });
  });

  it('allowed CIDRs open their ranges, and only those', async () => {
    const p = (a: string) => policy(resolverOf(a), ['127.0.0.0/8', '10.1.0.0/16', '192.168.5.5', 'fd00:1::/32']);
    await expect(checkDestination('https://x.example/', p('127.0.0.1'))).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(checkDestination('https://x.example/', p('10.1.200.3'))).resolves.toMatchObject({
      address: '10.1.200.3',
    });
    await expect(checkDestination('https://x.example/', p('192.168.5.5'))).resolves.toMatchObject({
      address: '192.168.5.5',
    });
    await expect(checkDestination('https://x.example/', p('fd00:1:ffff::9'))).resolves.toMatchObject({
      address: 'fd00:1:ffff::9',
      family: 6,
    });
    await expect(checkDestination('https://x.example/', p('10.2.0.1'))).rejects.toThrow('10.0.0.0/8');
    await expect(checkDestination('https://x.example/', p('192.168.5.6'))).rejects.toThrow('192.168.0.0/16');
    await expect(checkDestination('https://x.example/', p('fd00:2::1'))).rejects.toThrow('fc00::/7');
    await expect(checkDestination('https://x.example/', p('::1'))).rejects.toThrow('::1/128');
  });

  it('a name that does not resolve is refused as a DNS problem (a caller may retry it)', async () => {
    const notFound: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    const again: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };
    expect(await refusal('https://nowhere.example/', policy(notFound))).toMatchObject({
      kind: 'dns',
      message: 'nowhere.example could not be resolved (no such name)',
    });
    expect(await refusal('https://nowhere.example/', policy(again))).toMatchObject({
      kind: 'dns',
      message: 'nowhere.example could not be resolved (temporary DNS failure)',
    });
    expect(await refusal('https://nowhere.example/', policy(resolverOf()))).toMatchObject({
      kind: 'dns',
      message: 'nowhere.example resolves to no address',
    });
    const odd: Resolver = () => Promise.reject('boom');
    expect(await refusal('https://nowhere.example/', policy(odd))).toMatchObject({
      kind: 'dns',
      message: 'nowhere.example could not be resolved (boom)',
    });
    expect(await refusal('https://nowhere.example/', policy(resolverOf('not-an-ip')))).toMatchObject({ kind: 'dns' });
    expect(
      await refusal(
        'https://nowhere.example/',
        policy(async () => [null as unknown as { address: string; family: 4 }]),
      ),
    ).toMatchObject({ kind: 'dns' });
  });

  it('a bad URL is refused before the resolver is called', async () => {
    const resolve = resolverOf('8.8.8.8');
    expect((await refusal('http://hooks.example.com/', policy(resolve))).kind).toBe('syntax');
    expect(resolve).not.toHaveBeenCalled();
  });
});

describe('policyFromEnv', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-ca-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('defaults: nothing allowed, no extra CA, the system resolver', () => {
    expect(policyFromEnv({})).toEqual({ allowedCidrs: [], resolve: systemResolver });
    expect(policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: ' ', WEBHOOKS_CA_FILE: '' })).toEqual({
      allowedCidrs: [],
      resolve: systemResolver,
    });
  });

  it('reads WEBHOOKS_ALLOWED_CIDRS: comma-separated IPv4 and IPv6, spaces and empty entries ignored', () => {
    expect(policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: ' 10.0.0.0/8, fd00::/8,,192.168.1.20 ,' }).allowedCidrs).toEqual([
      '10.0.0.0/8',
      'fd00::/8',
      '192.168.1.20',
    ]);
  });

  it.each([
    ['not an address', 'intranet'],
    ['a prefix too long (IPv4)', '10.0.0.0/33'],
    ['a prefix too long (IPv6)', 'fd00::/129'],
    ['a prefix not a number', '10.0.0.0/x'],
    ['a negative prefix', '10.0.0.0/-1'],
    ['two slashes', '10.0.0.0/8/8'],
    ['a zone', 'fe90::1%eth0/128'],
    ['a range', '10.0.0.1-10.0.0.9'],
    ['a short IPv4', '10.0/16'],
  ])('a malformed WEBHOOKS_ALLOWED_CIDRS (%s) throws naming the setting', (_name, value) => {
    expect(() => policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: `127.0.0.0/8,${value}` })).toThrow(
      new RegExp(
        `^WEBHOOKS_ALLOWED_CIDRS: "${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not an IPv4 or IPv6 CIDR`,
      ),
    );
  });

  it.each(['169.254.0.0/16', '169.254.169.254', '169.254.169.0/24', 'fe80::/10', 'fe80::/64', 'fd00:ec2::254'])(
    'an allowed CIDR inside an always-refused range (%s) throws',
    (value) => {
      expect(() => policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: value })).toThrow(
        /^WEBHOOKS_ALLOWED_CIDRS: .* which is refused always$/,
      );
    },
  );

  it('a wider allowed CIDR is accepted but never re-opens the always-refused ranges', async () => {
    const p = policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: '0.0.0.0/0,::/0' });
    const check = (a: string) => checkDestination('https://x.example/', { ...p, resolve: resolverOf(a) });
    await expect(check('10.0.0.1')).resolves.toMatchObject({ address: '10.0.0.1' });
    await expect(check('fd00::1')).resolves.toMatchObject({ address: 'fd00::1' });
    await expect(check('169.254.169.254')).rejects.toThrow('refused always');
    await expect(check('fe80::1')).rejects.toThrow('refused always');
  });

  it('reads WEBHOOKS_CA_FILE once, and throws naming it when it is unreadable or holds no certificate', () => {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=test-ca',
      ],
      { stdio: 'pipe' },
    );
    const pem = fs.readFileSync(cert, 'utf8');
    const bundle = path.join(dir, 'bundle.pem');
    fs.writeFileSync(bundle, `# internal CAs\n${pem}\n${pem}`);
    expect(policyFromEnv({ WEBHOOKS_CA_FILE: cert }).extraCa).toBe(pem);
    expect(policyFromEnv({ WEBHOOKS_CA_FILE: bundle }).extraCa).toContain(pem);

    const missing = path.join(dir, 'missing.pem');
    expect(() => policyFromEnv({ WEBHOOKS_CA_FILE: missing })).toThrow(
      `WEBHOOKS_CA_FILE: cannot read ${missing} (ENOENT)`,
    );
    expect(() => policyFromEnv({ WEBHOOKS_CA_FILE: dir })).toThrow(/^WEBHOOKS_CA_FILE: cannot read .* \(EISDIR\)$/);
    const text = path.join(dir, 'text.pem');
    fs.writeFileSync(text, 'not a certificate');
    expect(() => policyFromEnv({ WEBHOOKS_CA_FILE: text })).toThrow(
      `WEBHOOKS_CA_FILE: ${text} holds no PEM certificate`,
    );
    const broken = path.join(dir, 'broken.pem');
    fs.writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(() => policyFromEnv({ WEBHOOKS_CA_FILE: broken })).toThrow(
      `WEBHOOKS_CA_FILE: certificate 1 in ${broken} cannot be parsed`,
    );
  });

  it('the system resolver answers from /etc/hosts for localhost (no traffic), and its answer is checked', async () => {
    await expect(checkDestination('https://localhost:9/', policyFromEnv({}))).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    await expect(
      checkDestination('https://localhost:9/', policyFromEnv({ WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8,::1' })),
    ).resolves.toMatchObject({ address: '127.0.0.1', family: 4 });
  });
});

describe('address helpers', () => {
  it('ipv6Groups expands :: and a dotted tail', () => {
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('fe80::')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('::ffff:10.0.0.5')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0005]);
    expect(ipv6Groups('2002:c0a8:101::1')).toEqual([0x2002, 0xc0a8, 0x0101, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
  });

  it('parseCidr takes a bare address as a single host', () => {
    expect(parseCidr('10.0.0.5')).toEqual({ family: 4, address: '10.0.0.5', prefix: 32, text: '10.0.0.5/32' });
    expect(parseCidr('fd00::/8')).toEqual({ family: 6, address: 'fd00::', prefix: 8, text: 'fd00::/8' });
    expect(parseCidr('fd00::/0128')).toBeNull();
    expect(parseCidr('')).toBeNull();
  });
});
