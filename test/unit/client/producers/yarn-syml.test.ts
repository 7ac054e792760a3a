// The fast reader of yarn 2+'s YAML subset: what it reads equals the yaml package's failsafe reading, and whatever
// lies outside the subset goes back to the yaml package (the part does not change).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { yarnLockProducer } from '../../../../src/client/producers/yarn-lock';
import { parseSyml } from '../../../../src/client/producers/yarn-syml';

const DIR = path.resolve(__dirname, '../../../fixtures/yarn/berry');
const TEXT = fs.readFileSync(path.join(DIR, 'yarn.lock'), 'utf8');
const failsafe = (text: string) => parse(text, { schema: 'failsafe' });

describe('yarn berry: the syml reader', () => {
  it('reads the lockfile yarn wrote exactly as the yaml package does', () => {
    expect(parseSyml(TEXT)).toEqual(failsafe(TEXT));
    expect(parseSyml(TEXT.replace(/\n/g, '\r\n'))).toEqual(failsafe(TEXT));
  });

  it('keeps every scalar a string, quoted or not', () => {
    const text = 'a:\n  version: 1.10\n  flag: true\n  n: null\n  t: ~\n  "q\\"k": "x\\u0041"\n  r: ^1 || >=2 <3\n';
    expect(parseSyml(text)).toEqual({
      a: { version: '1.10', flag: 'true', n: 'null', t: '~', 'q"k': 'xA', r: '^1 || >=2 <3' },
    });
    expect(parseSyml(text)).toEqual(failsafe(text));
  });

  it('gives up on anything outside the subset', () => {
    for (const text of [
      'a: [1, 2]\n', // flow sequence
      'a: {b: 1}\n', // flow map
      'a:\n  - 1\n', // block sequence
      'a: &x 1\nb: *x\n', // anchor and alias
      'a: |\n  text\n', // block scalar
      'a:\n   b: 1\n', // odd indent
      'a:\n    b: 1\n', // a level skipped
      'a: 1\n  b: 2\n', // deeper under a scalar
      'a:\nb: 1\n', // empty map (null in YAML)
      'a:\n', // same, at the end
      'a: 1\na: 2\n', // duplicate key
      "a: 'single'\n", // single-quoted
      'a: "x\\x41"\n', // a YAML-only escape
      'a: b # comment\n',
      'a:  b\n', // extra space
      'a: b \n', // trailing space
      'a:b\n', // not a key
      '---\na: 1\n',
      '"a" b: 1\n',
      '__proto__: 1\n',
      'a: "open\n',
    ]) {
      expect([text, parseSyml(text)]).toEqual([text, undefined]);
    }
  });

  it('produces the same part when the yaml package reads the file instead', () => {
    const files = (p: string) =>
      fs.existsSync(path.join(DIR, p)) ? fs.readFileSync(path.join(DIR, p), 'utf8') : undefined;
    // A single-quoted scalar and a flow map: valid YAML, outside the subset.
    const other = TEXT.replace('cacheKey: 10c0', "cacheKey: '10c0'").replace(
      '  dependencies:\n    is-odd: "npm:^0.1.2"\n',
      '  dependencies: { is-odd: "npm:^0.1.2" }\n',
    );
    expect(other).not.toBe(TEXT);
    expect(parseSyml(other)).toBeUndefined();
    expect(failsafe(other)).toEqual(failsafe(TEXT));
    const fast = yarnLockProducer.produce({ path: 'yarn.lock', text: TEXT, readFile: files });
    const slow = yarnLockProducer.produce({ path: 'yarn.lock', text: other, readFile: files });
    expect({ ...slow, locations: {} }).toEqual({ ...fast, locations: {} });
    // The flow map took one line less: entries after it sit a line higher.
    for (const [id, l] of Object.entries(fast.locations))
      expect(slow.locations[id].line).toBe(l.line! > 44 ? l.line! - 1 : l.line);
  });
});
