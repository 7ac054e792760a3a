// Redaction of MCP server configurations (src/shared/mcp/redact.ts): every rule with the values it
// must redact and the look-alikes it must leave (package names, paths, digests, references), argument lists, env and
// headers reduced to names, the home directory, whole servers; and the properties the client and the service rely on:
// safe to apply twice (the same text, the same "was anything redacted"), and a planted secret never survives.
import fc from 'fast-check';
import {
  homeToTilde,
  isHeaderReference,
  isReference,
  isSecretName,
  redact,
  redactArgs,
  redactEnv,
  redactHeaders,
  redactServer,
  redactText,
  shannonEntropy,
  REDACTED as R,
} from '../../../src/shared/mcp/redact';

const GHP = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const HEX64 = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const HEX40 = 'e83c5163316f89bfbde7d9ab23ca2e25604af290';
const RANDOM = 'x8RzT4vWq1NmYbC3dE6fGh';

describe('known token formats, JWTs and private keys', () => {
  const table: Array<[what: string, secret: string]> = [
    ['GitHub classic PAT', GHP],
    ['GitHub OAuth', 'gho_' + '16C7e42F292c6912E7710c838347Ae178B4a'],
    ['GitHub user-to-server', 'ghu_' + '16C7e42F292c6912E7710c838347Ae178B4a'],
    ['GitHub server-to-server', 'ghs_' + '16C7e42F292c6912E7710c838347Ae178B4a'],
    ['GitHub refresh', 'ghr_' + '1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498'],
    [
      'GitHub fine-grained PAT',
      'github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01',
    ],
    ['OpenAI project key', 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'],
    ['OpenAI legacy key', 'sk-' + 'T3BlbkFJ' + 'a1B2c3D4e5F6g7H8i9J0k1L2'],
    ['Anthropic key', 'sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z-AbCdEfAA'],
    ['Stripe secret key', 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc'],
    ['Stripe restricted key', 'rk_test_' + '4eC39HqLyjWDarjtT1zdp7dc'],
    ['Slack bot token', 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['Slack user token', 'xoxp-' + '123456789012-1234567890123-1234567890123-0123456789abcdef0123456789abcdef'],
    ['Slack app token', 'xoxa-2-' + '123456789012-AbCdEfGhIjKl'],
    ['Slack legacy token', 'xoxs-' + '123456789012-AbCdEfGhIjKl'],
    ['Slack app-level token', 'xapp-1-' + 'A0123456789-1234567890123-abcdef'],
    ['AWS access key id', 'AKIA' + 'IOSFODNN7EXAMPLE'],
    ['AWS temporary key id', 'ASIA' + 'Y34FZKBOKMUTVV7A'],
    ['Google API key', 'AIza' + 'SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe'],
    ['GitLab PAT', 'glpat-' + 'xY9zAb3dEf6hIj9kLm2n'],
    ['npm token', 'npm_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'],
    ['PyPI token', 'pypi-' + 'AgEIcHlwaS5vcmcCJGE0ZjM0YmQxLTk5YjUtNDE2Yi1hNzYxLTg5ZDk0OWQ1YjQ5MAACKlszLCJmZjRi'],
    ['Hugging Face token', 'hf_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH'],
    ['DigitalOcean token', 'dop_v1_' + HEX64],
    ['Shopify token', 'shpat_' + '0123456789abcdef0123456789abcdef'],
    ['Linear key', 'lin_api_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcD'],
    ['Notion token', 'secret_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFg'],
    ['Figma token', 'figd_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
    ['SendGrid key', 'SG.' + 'aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234'],
    ['Atlassian API token', 'ATATT' + '3xFfGF0aBcDeFgHiJkLmNoPqRsTuVwXyZ'],
    ['JWT', JWT],
    ['unsigned JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.'],
    [
      'PEM private key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF0qJ\n-----END RSA PRIVATE KEY-----',
    ],
  ];
  test.each(table)('%s: alone, and inside other text', (_what, secret) => {
    expect(redactText(secret)).toBe(R);
    expect(redactText(`before ${secret} after`)).toBe(`before ${R} after`);
    expect(redactText(`"${secret}"`)).toBe(`"${R}"`);
    expect(redact(secret).redacted).toBe(true);
  });
});

describe('values whose name says they are secret', () => {
  const table: Array<[input: string, expected: string]> = [
    ['--token=abc', `--token=${R}`],
    ['--api-key=abc', `--api-key=${R}`],
    ['--api_key=abc', `--api_key=${R}`],
    ['--apiKey=abc', `--apiKey=${R}`],
    ['--password=hunter2', `--password=${R}`],
    ['--secret=s3', `--secret=${R}`],
    ['--github-token=abc', `--github-token=${R}`],
    ['--client-secret=abc', `--client-secret=${R}`],
    ['--access-key=abc', `--access-key=${R}`],
    ['--db-pwd=abc', `--db-pwd=${R}`],
    ['-password=abc', `-password=${R}`],
    ['--token abc --verbose', `--token ${R} --verbose`],
    ['--token "two words"', `--token ${R}`],
    ["--password 'two words' x", `--password ${R} x`],
    ['API_KEY=abc', `API_KEY=${R}`],
    ['GITHUB_PERSONAL_ACCESS_TOKEN=abc', `GITHUB_PERSONAL_ACCESS_TOKEN=${R}`],
    ['DB_PASSWORD=abc other=1', `DB_PASSWORD=${R} other=1`],
    ['AccountName=a;AccountKey=abc==', `AccountName=a;AccountKey=${R}`],
    ['Authorization: Bearer abc', `Authorization: Bearer ${R}`],
    ['Authorization: token abc', `Authorization: token ${R}`],
    ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Basic ${R}`],
    ['Authorization: abc', `Authorization: ${R}`],
    ['X-API-Key: abc', `X-API-Key: ${R}`],
    ['x-api-key:abc', `x-api-key:${R}`],
    ['Bearer abc', `Bearer ${R}`],
    ['{"apiKey":"abc","region":"eu"}', `{"apiKey":"${R}","region":"eu"}`],
    ['{"password": "p\\"q", "user": "me"}', `{"password": "${R}", "user": "me"}`],
  ];
  test.each(table)('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  const kept: string[] = [
    '--token ${TOKEN}',
    '--api-key=${env:API_KEY}',
    'API_KEY=${API_KEY}',
    'API_KEY=$API_KEY',
    'Authorization: Bearer ${input:token}',
    '{"apiKey":"${env:KEY}"}',
    '--token-file=/run/secrets/token',
    '--tokenizer=bpe',
    'max_tokens=4096',
    '--password-file ~/.pw',
    '--no-auth-prompt',
    'token',
    'Bearer',
    '--token',
    'GITHUB_PERSONAL_ACCESS_TOKEN',
  ];
  test.each(kept)('kept: %s', (input) => {
    expect(redactText(input)).toBe(input);
  });

  test.each([
    ['token', true],
    ['--token', true],
    ['GITHUB_TOKEN', true],
    ['githubToken', true],
    ['apiKey', true],
    ['X-Api-Key', true],
    ['client.secret', true],
    ['Authorization', true],
    ['DB_PWD', true],
    ['credentials', true],
    ['max_tokens', false],
    ['tokenizer', false],
    ['PWD', false],
    ['keyboard', false],
    ['primary', false],
    ['token_file', false],
  ])('isSecretName(%s) = %s', (name, expected) => {
    expect(isSecretName(name as string)).toBe(expected);
  });
});

describe('URLs: user info, query values and fragment values', () => {
  const table: Array<[input: string, expected: string]> = [
    ['https://user:pass@h.example.com/p', `https://${R}@h.example.com/p`],
    ['https://token@h.example.com/p', `https://${R}@h.example.com/p`],
    ['postgresql://admin:s3cret@db:5432/app?sslmode=require', `postgresql://${R}@db:5432/app?sslmode=${R}`],
    ['https://h.example.com/p?a=1&b=&c=${X}&d', `https://h.example.com/p?a=${R}&b=&c=\${X}&d`],
    ['https://h.example.com/cb#access_token=abc&state=x', `https://h.example.com/cb#access_token=${R}&state=${R}`],
    ['https://h.example.com/docs#section-2', 'https://h.example.com/docs#section-2'],
    ['https://${USER}:${PASS}@h.example.com/', 'https://${USER}:${PASS}@h.example.com/'],
    ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp'],
    ['http://localhost:3000/sse', 'http://localhost:3000/sse'],
    [`https://actions.zapier.com/mcp/sk-ak-${RANDOM}/sse`, `https://actions.zapier.com/mcp/${R}/sse`],
    [
      'https://hooks.slack.com/services/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',
      `https://hooks.slack.com/services/T024BE7LD/B07K9Q2JH5L/${R}`,
    ],
    [`https://h.example.com/${GHP}/x`, `https://h.example.com/${R}/x`],
    ['--url=https://u:p@h.example.com/?key=v', `--url=https://${R}@h.example.com/?key=${R}`],
    [
      'run https://a:b@one.example.com/?t=1 and https://two.example.com/?k=2',
      `run https://${R}@one.example.com/?t=${R} and https://two.example.com/?k=${R}`,
    ],
    ['git+https://github.com/org/repo@' + HEX40, 'git+https://github.com/org/repo@' + HEX40],
    // The host is public (DNS): never redacted, so a remote identity keeps it.
    [
      'https://abcdefghijk0123456789lmnopqrstu.lambda-url.us-east-1.on.aws/mcp',
      'https://abcdefghijk0123456789lmnopqrstu.lambda-url.us-east-1.on.aws/mcp',
    ],
  ];
  test.each(table)('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });
});

describe('long runs of high entropy', () => {
  const redacted: string[] = [
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    RANDOM,
    '9f86d081884c7d659a2feaa0c55ad015',
    HEX64,
    'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==',
    'aB3dE5gH7jK9mN1pQ3rS',
  ];
  test.each(redacted)('redacted: %s', (secret) => {
    expect(shannonEntropy(secret)).toBeGreaterThanOrEqual(3.5);
    expect(redactText(secret)).toBe(R);
    expect(redactText(`--opt ${secret}`)).toBe(`--opt ${R}`);
  });

  const kept: string[] = [
    'mcp-server-kubernetes-readonly',
    'mcp-server-sequential-thinking',
    '@modelcontextprotocol/server-filesystem',
    '@upstash/context7-mcp@latest',
    'ModelContextProtocolServer',
    'server_filesystem_readonly_mode',
    'GITHUB_PERSONAL_ACCESS_TOKEN',
    'docker.io/library/postgres:16-alpine',
    'ghcr.io/github/github-mcp-server:v0.4.0',
    'mcp-server-fetch@2025.1.17',
    'x86_64-unknown-linux-gnu',
    '550e8400-e29b-41d4-a716-446655440000',
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '12345678901234567890123',
    // filesystem paths
    `/home/dev/.config/${RANDOM}/state`,
    `~/${RANDOM}`,
    `./${RANDOM}/x`,
    `../${RANDOM}`,
    `C:\\Users\\dev\\${RANDOM}`,
    `C:/Users/dev/${RANDOM}`,
    `--root=/srv/${RANDOM}`,
    // digests and commits
    `sha256:${HEX64}`,
    `nginx@sha256:${HEX64}`,
    `github:org/repo#${HEX40}`,
    `pkg@${HEX40}`,
    // references
    '${GITHUB_PERSONAL_ACCESS_TOKEN_FOR_THE_BOT}',
  ];
  test.each(kept)('kept: %s', (text) => {
    expect(redactText(text)).toBe(text);
    expect(redact(text).redacted).toBe(false);
  });

  test('entropy in bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('ab')).toBe(1);
    expect(shannonEntropy('abcd')).toBe(2);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
  });
});

describe('argument lists', () => {
  const table: Array<[args: unknown[], expected: string[]]> = [
    [
      ['--token', 'abc'],
      ['--token', R],
    ],
    [
      ['--api-key', 'abc', 'rest'],
      ['--api-key', R, 'rest'],
    ],
    [
      ['--password', '--verbose'],
      ['--password', '--verbose'],
    ],
    [
      ['--token', '${TOKEN}'],
      ['--token', '${TOKEN}'],
    ],
    [
      ['--token', ''],
      ['--token', ''],
    ],
    [['--secret'], ['--secret']],
    [
      ['-e', `GITHUB_TOKEN=${GHP}`],
      ['-e', `GITHUB_TOKEN=${R}`],
    ],
    [
      ['-e', 'GITHUB_PERSONAL_ACCESS_TOKEN'],
      ['-e', 'GITHUB_PERSONAL_ACCESS_TOKEN'],
    ],
    [
      ['--header', 'Authorization: Bearer abc'],
      ['--header', `Authorization: Bearer ${R}`],
    ],
    [
      ['--header', 'Authorization:${AUTH_HEADER}'],
      ['--header', 'Authorization:${AUTH_HEADER}'],
    ],
    [
      ['mcp-remote', 'https://u:p@mcp.example.com/sse?key=k'],
      ['mcp-remote', `https://${R}@mcp.example.com/sse?key=${R}`],
    ],
    [
      ['-y', '@modelcontextprotocol/server-filesystem', '/home/dev/projects'],
      ['-y', '@modelcontextprotocol/server-filesystem', '/home/dev/projects'],
    ],
    [
      [1, true, null],
      ['1', 'true', 'null'],
    ],
  ];
  test.each(table)('%j', (args, expected) => {
    const r = redactArgs(args);
    expect(r.args).toEqual(expected);
    expect(r.redacted).toBe(expected.some((a) => a.includes(R)));
  });
});

describe('env and headers: names kept, literal values listed', () => {
  test('env', () => {
    const r = redactEnv({
      A: 'literal',
      B: '${B}',
      C: '${env:C}',
      D: '',
      E: '$E',
      F: '${F:-default}',
      G: 42,
      H: null,
      I: R,
    });
    expect(r.values).toEqual({ A: R, B: '${B}', C: '${env:C}', D: '', E: '$E', F: R, G: R, H: R, I: R });
    expect(r.names).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I']);
    expect(r.literal).toEqual(['A', 'F', 'G', 'H', 'I']);
  });

  test('headers: a reference after an authorization scheme is a reference', () => {
    const r = redactHeaders({
      Authorization: 'Bearer ${input:tok}',
      'X-Key': 'abc',
      Other: 'Bearer abc',
      Ref: '${env:H}',
    });
    expect(r.values).toEqual({ Authorization: 'Bearer ${input:tok}', 'X-Key': R, Other: R, Ref: '${env:H}' });
    expect(r.literal).toEqual(['X-Key', 'Other']);
  });

  test.each([undefined, null, 'A=b', ['A'], 3])('not an object (%j): nothing', (input) => {
    expect(redactEnv(input)).toEqual({ values: {}, names: [], literal: [] });
    expect(redactHeaders(input)).toEqual({ values: {}, names: [], literal: [] });
  });

  test('safe to apply twice: the same values, the same literal names', () => {
    const env = { A: 'x', B: '${B}', C: 'Bearer ${C}' };
    const once = redactHeaders(env);
    expect(redactHeaders(once.values)).toEqual(once);
    const onceEnv = redactEnv(env);
    expect(redactEnv(onceEnv.values)).toEqual(onceEnv);
  });

  test.each([
    ['${A}', true],
    ['${env:A}', true],
    ['${input:api-key}', true],
    ['${workspaceFolder}', true],
    ['$A_B', true],
    ['${A:-x}', false],
    ['${A}x', false],
    ['x${A}', false],
    ['$', false],
    ['${}', false],
    ['abc', false],
  ])('isReference(%s) = %s', (value, expected) => {
    expect(isReference(value as string)).toBe(expected);
  });

  test.each([
    ['Bearer ${TOKEN}', true],
    ['token ${env:T}', true],
    ['${H}', true],
    ['Bearer abc', false],
    ['Bearer ${A} ${B}', false],
  ])('isHeaderReference(%s) = %s', (value, expected) => {
    expect(isHeaderReference(value as string)).toBe(expected);
  });
});

describe('the home directory, written ~', () => {
  test.each([
    ['/home/dev/x', '/home/dev', '~/x'],
    ['/home/dev', '/home/dev', '~'],
    ['/home/dev/x', '/home/dev/', '~/x'],
    ['/home/developer/x', '/home/dev', '/home/developer/x'],
    ['/srv/home/dev/x', '/home/dev', '/srv/home/dev/x'],
    ['~/x', '/home/dev', '~/x'],
    ['C:\\Users\\Dev\\mcp\\server.js', 'C:\\Users\\dev', '~\\mcp\\server.js'],
    ['c:/users/dev/mcp', 'C:\\Users\\dev', '~/mcp'],
    ['/Users/dev/Library', '/Users/dev', '~/Library'],
    ['/Users/Dev/Library', '/Users/dev', '/Users/Dev/Library'],
    ['/home/dev/x', undefined, '/home/dev/x'],
    ['/x', '/', '/x'],
  ])('%s with home %s → %s', (value, home, expected) => {
    expect(homeToTilde(value as string, home as string | undefined)).toBe(expected);
  });
});

describe('a whole server', () => {
  const server = {
    name: 'github',
    transport: 'stdio',
    command: '/home/dev/.local/bin/github-mcp',
    args: ['--token', 'abc', '--repo', 'org/repo', '/home/dev/work'],
    url: undefined,
    env: { GITHUB_TOKEN: GHP, LOG_LEVEL: '${LOG_LEVEL}' },
  };

  test('args, command, env redacted, the home written ~, absent fields absent', () => {
    const r = redactServer(server, { home: '/home/dev' });
    expect(r.server).toEqual({
      name: 'github',
      command: '~/.local/bin/github-mcp',
      args: ['--token', R, '--repo', 'org/repo', '~/work'],
      env: { GITHUB_TOKEN: R, LOG_LEVEL: '${LOG_LEVEL}' },
    });
    expect(r).toMatchObject({ redacted: true, literalEnv: ['GITHUB_TOKEN'], literalHeaders: [], secretInConfig: true });
    expect('url' in r.server).toBe(false);
    expect('headers' in r.server).toBe(false);
  });

  test('a remote server with headers', () => {
    const r = redactServer({
      name: 'api',
      url: 'https://u:p@mcp.example.com/mcp?k=v',
      headers: { Authorization: 'Bearer xyz', 'X-Ref': '${env:REF}' },
    });
    expect(r.server).toEqual({
      name: 'api',
      url: `https://${R}@mcp.example.com/mcp?k=${R}`,
      headers: { Authorization: R, 'X-Ref': '${env:REF}' },
    });
    expect(r).toMatchObject({
      redacted: true,
      literalEnv: [],
      literalHeaders: ['Authorization'],
      secretInConfig: true,
    });
  });

  test('nothing secret: nothing raised', () => {
    const r = redactServer({
      name: 'fs',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '${DEBUG}' },
    });
    expect(r).toMatchObject({ redacted: false, literalEnv: [], literalHeaders: [], secretInConfig: false });
  });

  test('what the client uploads raises the same on the service (redacted again, without the home)', () => {
    const client = redactServer(server, { home: '/home/dev' });
    const service = redactServer(client.server);
    expect(service.server).toEqual(client.server);
    expect(service).toMatchObject({ redacted: client.redacted, literalEnv: client.literalEnv, secretInConfig: true });
  });
});

// --- properties -----------------------------------------------------------------------------------------------

const FRAGMENTS = [
  '--token',
  '--api-key',
  '--password',
  '=',
  ' ',
  '  ',
  '\t',
  'https://',
  'http://',
  'postgres://',
  '@',
  '?',
  '&',
  '#',
  ':',
  '/',
  '~/',
  './',
  '\\',
  'C:\\',
  '${',
  '}',
  '$',
  'Bearer ',
  'token ',
  'Token:',
  'Authorization: ',
  'sk-',
  'ghp_',
  'AKIA',
  'eyJ',
  '.',
  '"',
  "'",
  '`',
  R,
  '[',
  ']',
  'API_KEY',
  'password',
  'sha256:',
  '-',
  '_',
  '+',
  ',',
  ';',
  '\n',
  'a',
  'Z',
  '7',
  'abc',
  'XyZ9',
  '{"',
  '":"',
  '"}',
  'xoxb-',
  'npm_',
  GHP,
  JWT,
  RANDOM,
];
const chunk = fc.oneof(
  fc.constantFrom(...FRAGMENTS),
  fc.stringMatching(/^[A-Za-z0-9+/_-]{1,30}$/),
  fc.stringMatching(/^[0-9a-f]{1,70}$/),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(chunk, { maxLength: 24 }).map((parts) => parts.join(''));

describe('safe to apply twice', () => {
  test('text built from the pieces the rules look at', () => {
    fc.assert(
      fc.property(text, (t) => {
        const once = redact(t);
        const twice = redact(once.text);
        expect(twice).toEqual(once);
      }),
      { numRuns: 3000 },
    );
  });

  test('any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (t) => {
        const once = redactText(t);
        expect(redactText(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  test('argument lists', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, fc.constantFrom('--token', '--secret', '-e', '--header')), { maxLength: 8 }),
        (args) => {
          const once = redactArgs(args);
          expect(redactArgs(once.args)).toEqual(once);
        },
      ),
      { numRuns: 1500 },
    );
  });

  test('servers', () => {
    const server = fc.record(
      {
        name: text,
        command: text,
        args: fc.array(text, { maxLength: 5 }),
        url: text,
        env: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(text, fc.constant('${X}'))),
        headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(text, fc.constant('Bearer ${X}'))),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(server, fc.constantFrom(undefined, '/home/dev'), (s, home) => {
        const once = redactServer(s, { home });
        const twice = redactServer(once.server);
        expect(twice.server).toEqual(once.server);
        expect(twice.redacted).toBe(once.redacted);
        expect(twice.literalEnv).toEqual(once.literalEnv);
        expect(twice.literalHeaders).toEqual(once.literalHeaders);
        expect(twice.secretInConfig).toBe(once.secretInConfig);
      }),
      { numRuns: 800 },
    );
  });
});

describe('a planted secret never survives', () => {
  const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const body = (min: number, max: number) =>
    fc.array(fc.constantFrom(...base62), { minLength: min, maxLength: max }).map((a) => a.join(''));
  const prefixed = fc.oneof(
    body(36, 36).map((b) => `ghp_${b}`),
    body(30, 40).map((b) => `github_pat_${b}`),
    body(24, 48).map((b) => `sk-proj-${b}1`),
    body(24, 48).map((b) => `sk-ant-api03-${b}7`),
    body(24, 40).map((b) => `xoxb-1234-${b}`),
    body(36, 36).map((b) => `npm_${b}`),
    body(20, 30).map((b) => `glpat-${b}`),
    body(34, 34).map((b) => `hf_${b}`),
    fc.stringMatching(/^[A-Z0-9]{16}$/).map((b) => `AKIA${b}`),
    fc.tuple(body(10, 30), body(10, 30), body(10, 40)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  );
  // Random tokens without a prefix: caught by entropy (made to be random-looking: mixed case with digits inside).
  const random = body(24, 48).filter(
    (s) => /[0-9]/.test(s.slice(1, -3)) && /[A-Z]/.test(s) && /[a-z]/.test(s) && shannonEntropy(s) >= 3.6,
  );
  const anywhere = [
    (s: string) => s,
    (s: string) => `--token ${s}`,
    (s: string) => `--api-key=${s}`,
    (s: string) => `SOME_SECRET=${s}`,
    (s: string) => `Authorization: Bearer ${s}`,
    (s: string) => `https://mcp.example.com/mcp?key=${s}`,
    (s: string) => `https://me:${s}@mcp.example.com/`,
    (s: string) => `https://mcp.example.com/${s}/sse`,
    (s: string) => `{"password":"${s}"}`,
    (s: string) => `prefix ${s} suffix`,
  ];
  test('prefixed tokens and JWTs, in every context', () => {
    fc.assert(
      fc.property(prefixed, fc.constantFrom(...anywhere), (secret, wrap) => {
        const out = redactText(wrap(secret));
        expect(out).not.toContain(secret);
        expect(out).toContain(R);
      }),
      { numRuns: 1500 },
    );
  });
  test('random tokens, in every context', () => {
    fc.assert(
      fc.property(random, fc.constantFrom(...anywhere), (secret, wrap) => {
        expect(redactText(wrap(secret))).not.toContain(secret);
      }),
      { numRuns: 1500 },
    );
  });
  test('in an argument list, after a secret option, whatever it looks like', () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 30 })
          .filter((s) => !s.startsWith('-') && !isReference(s) && !s.includes(R)),
        (secret) => {
          expect(redactArgs(['--password', secret]).args).toEqual(['--password', R]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
