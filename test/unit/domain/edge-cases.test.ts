// Behaviours decided after review: ties between events keep the advisory's order, suppression ids ignore case,
// an empty manifest falls back, a byte order mark does not break an advisory file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOsvSources } from '../../../src/advisories/reader';
import { v1Paths } from '../../../src/domain/attribution';
import { activeSuppressions, findSuppression } from '../../../src/domain/suppressions';
import type { Snapshot } from '../../../src/shared/types';
import { npmAdv, range, verdict } from './helpers';

describe('events at the same version keep the advisory order', () => {
  const reopened = [
    npmAdv('GHSA-a', 'p', [
      range({ introduced: '0' }, { fixed: '1.0.0' }, { introduced: '1.0.0' }, { fixed: '2.0.0' }),
    ]),
  ];
  test('[.., fixed X, introduced X, ..] reopens at X', () => {
    expect(verdict(reopened, 'p', '1.0.0')).toBe('2.0.0');
    expect(verdict(reopened, 'p', '0.9.0')).toBe('1.0.0');
  });
  test('[introduced X, fixed X] is empty', () => {
    expect(verdict([npmAdv('GHSA-b', 'p', [range({ introduced: '1.0.0' }, { fixed: '1.0.0' })])], 'p', '1.0.0')).toBe(
      'not affected',
    );
  });
});

test('a suppression id matches whatever its case', () => {
  const active = activeSuppressions([{ cve: 'ghsa-35jh-r3h4-6jhm', reason: 'r' }], 'javascript', '2026-01-01');
  expect(findSuppression(active, ['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm'], 'lodash')?.reason).toBe('r');
});

test('an empty manifest on a v1 root falls back to the snapshot manifest, then the module', () => {
  const base: Snapshot = {
    schemaVersion: 1,
    project: 'p',
    ecosystem: 'javascript',
    roots: [{ module: 'app', manifest: '', context: 'dependencies', dependencies: ['a@1'] }],
    nodes: [{ id: 'a@1', name: 'a', version: '1', relationship: 'direct', dependencies: [] }],
  };
  expect(v1Paths(base, ['a@1']).get('a@1')).toEqual(['app', 'a@1']);
  expect(v1Paths({ ...base, manifests: ['package.json'] }, ['a@1']).get('a@1')).toEqual(['package.json', 'a@1']);
});

test('an advisory file that starts with a byte order mark is read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bom-'));
  fs.writeFileSync(path.join(dir, 'a.json'), '\uFEFF' + JSON.stringify({ id: 'GHSA-bom', affected: [] }));
  const items = [];
  for await (const item of readOsvSources([dir])) items.push(item);
  expect(items).toEqual([{ source: path.join(dir, 'a.json'), advisory: { id: 'GHSA-bom', affected: [] } }]);
});

describe('a fixed event listing several releases ("7.2.4, 6.11.4")', () => {
  const advisory = [npmAdv('GHSA-multi', 'p', [range({ introduced: '0' }, { fixed: '7.2.4, 6.11.4' })])];
  test('closes the range at the highest release and offers the lowest one above the installed version', () => {
    expect(verdict(advisory, 'p', '6.5.0')).toBe('6.11.4');
    expect(verdict(advisory, 'p', '7.0.0')).toBe('7.2.4');
    expect(verdict(advisory, 'p', '7.2.4')).toBe('not affected');
  });
  test('a list with an unreadable member leaves the range open with no fix', () => {
    expect(
      verdict([npmAdv('GHSA-bad', 'p', [range({ introduced: '0' }, { fixed: '7.2.4, soon' })])], 'p', '9.0.0'),
    ).toBeNull();
  });
});
