// The where-used index (src/domain/usages): names compared as each ecosystem compares them, the order and keyset pages,
// and an index changed source by source is the one built from scratch, the index it came from left as it was.
import { normalizedName, type InventoryItem } from '../../../src/domain/inventory';
import { UsageIndex, usageKey, type UsageSource } from '../../../src/domain/usages';

function source(projectId: string, slug: string, ecosystem: string, scanId: string, pkgs: string[]): UsageSource {
  const items: InventoryItem[] = pkgs.map((p) => {
    const at = p.lastIndexOf('@');
    return {
      id: `dep_${projectId}_${p}`,
      name: p.slice(0, at),
      version: p.slice(at + 1),
      direct: true,
      path: ['m', p],
      manifest: 'm',
    };
  });
  return {
    projectId,
    projectSlug: slug,
    ecosystem,
    scanId,
    items,
    names: items.map((i) => normalizedName(ecosystem, i.name)),
  };
}

const shown = (index: UsageIndex, name: string, extra: object = {}) =>
  index
    .query({ name, limit: 1000, ...extra })
    .usages.map((u) => `${u.source.projectSlug}/${u.source.ecosystem}/${u.item.name}@${u.item.version}`);

const A = source('prj_a', 'a', 'javascript', 'scn_a1', ['Lodash@1.0.0', 'lodash@2.0.0', 'react@18.0.0']);
const B = source('prj_b', 'b', 'python', 'scn_b1', ['Zope.Interface@5.0', 'requests@2.0']);
const C = source('prj_c', 'c', 'typescript', 'scn_c1', ['lodash@2.0.0']);
const D = source('prj_d', 'd', 'gradle', 'scn_d1', ['org.Example:Lib@1.0']);

test('names as each ecosystem compares them; order by slug, ecosystem, version; filters', () => {
  const index = UsageIndex.of([C, B, A, D]);
  expect(shown(index, 'LODASH')).toEqual([
    'a/javascript/Lodash@1.0.0',
    'a/javascript/lodash@2.0.0',
    'c/typescript/lodash@2.0.0',
  ]);
  expect(shown(index, 'zope_interface')).toEqual(['b/python/Zope.Interface@5.0']);
  expect(shown(index, 'org.example:lib')).toEqual([]);
  expect(shown(index, 'org.Example:Lib')).toEqual(['d/gradle/org.Example:Lib@1.0']);
  expect(shown(index, 'lodash', { version: '2.0.0' })).toEqual([
    'a/javascript/lodash@2.0.0',
    'c/typescript/lodash@2.0.0',
  ]);
  expect(shown(index, 'lodash', { ecosystem: 'typescript' })).toEqual(['c/typescript/lodash@2.0.0']);
  expect(shown(index, 'lodash', { projectIds: ['prj_c'] })).toEqual(['c/typescript/lodash@2.0.0']);
});

test('keyset pages give the whole list once, in order', () => {
  const index = UsageIndex.of([A, C]);
  const whole = index.query({ name: 'lodash', limit: 100 }).usages;
  const seen = [];
  let after;
  for (;;) {
    const page = index.query({ name: 'lodash', limit: 1, after });
    seen.push(...page.usages);
    if (!page.next) break;
    expect(page.next).toEqual(usageKey(page.usages[0]));
    after = page.next;
  }
  expect(seen).toEqual(whole);
});

test('a change of sources gives the index built from scratch, and leaves the old one as it was', () => {
  const before = UsageIndex.of([A, B, C]);
  const A2 = source('prj_a', 'a', 'javascript', 'scn_a2', ['lodash@3.0.0', 'vue@3.0.0']);
  const after = before.next([A2, D], (projectId) => projectId !== 'prj_b');
  const scratch = UsageIndex.of([A2, C, D]);
  for (const name of ['lodash', 'react', 'vue', 'zope.interface', 'requests', 'org.Example:Lib'])
    expect([name, shown(after, name)]).toEqual([name, shown(scratch, name)]);
  expect(shown(before, 'lodash')).toEqual([
    'a/javascript/Lodash@1.0.0',
    'a/javascript/lodash@2.0.0',
    'c/typescript/lodash@2.0.0',
  ]);
  expect(shown(before, 'requests')).toEqual(['b/python/requests@2.0']);
  expect([after.size, after.scanOf('prj_a', 'javascript'), after.scanOf('prj_b', 'python')]).toEqual([
    3,
    'scn_a2',
    undefined,
  ]);
  // no change: the same index
  expect(after.next([A2], () => true)).toBe(after);
});
