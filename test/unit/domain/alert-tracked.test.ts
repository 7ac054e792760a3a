// Tracked scans (src/domain/alerts/tracked.ts): a ref absent or naming the default branch, whatever prefix CI puts
// before it; a default branch named as git allows.
import { branchNameProblem, branchOf, isTracked } from '../../../src/domain/alerts/tracked';

test('a ref absent, empty or naming the default branch is tracked, with or without the prefixes CI adds', () => {
  for (const ref of [undefined, null, '', '  ', 'main', 'refs/heads/main', 'origin/main', 'refs/remotes/origin/main'])
    expect({ ref, tracked: isTracked(ref) }).toEqual({ ref, tracked: true });
  for (const ref of ['feature/x', 'refs/heads/maint', 'refs/pull/12/merge', 'mainline', 'refs/tags/main-1'])
    expect({ ref, tracked: isTracked(ref) }).toEqual({ ref, tracked: false });
  expect(isTracked('refs/heads/develop', 'develop')).toBe(true);
  expect(isTracked('main', 'develop')).toBe(false);
  expect(isTracked('refs/heads/release/2.x', 'refs/heads/release/2.x')).toBe(true);
  expect(branchOf(' refs/heads/release/2.x ')).toBe('release/2.x');
});

test('a default branch is named as git allows', () => {
  for (const ok of ['main', 'develop', 'release/2.x', 'trunk_1', 'v1.2'])
    expect({ ok, problem: branchNameProblem(ok) }).toEqual({ ok, problem: null });
  for (const bad of [
    '',
    'a b',
    'a..b',
    'x@{1}',
    '/main',
    'main/',
    '.hidden',
    'x.lock',
    'a~1',
    'a:b',
    'a\u0001',
    '@',
    'a//b',
    'x'.repeat(256),
  ])
    expect({ bad, refused: branchNameProblem(bad) !== null }).toEqual({ bad, refused: true });
});
