// Tracked scans: the scans of a project's default branch, which move its alerts. A scan is tracked when its
// `metadata.ref` is absent or names the default branch; `main`, `refs/heads/main`, `origin/main` and
// `refs/remotes/origin/main` name the same branch.

export const DEFAULT_BRANCH = 'main';
export const MAX_BRANCH_LENGTH = 255;

/** The branch a ref names, without the prefixes CI systems put before it. */
export function branchOf(ref: string): string {
  return ref
    .trim()
    .replace(/^refs\/heads\//, '')
    .replace(/^refs\/remotes\/[^/]+\//, '')
    .replace(/^origin\//, '');
}

/** Whether a scan with this `metadata.ref` is tracked by a project whose default branch is `defaultBranch`. */
export function isTracked(ref: string | null | undefined, defaultBranch: string = DEFAULT_BRANCH): boolean {
  if (ref === null || ref === undefined || ref.trim() === '') return true;
  return branchOf(ref) === branchOf(defaultBranch);
}

/**
 * Why a default branch cannot be one (null when it can): git's own rules for a branch name, in short (no control
 * characters, spaces, `~^:?*[\`, `..`, `@{`, no leading or trailing `/` or `.`, no `.lock` end), within 255 characters.
 */
export function branchNameProblem(name: string): string | null {
  if (!name) return 'must not be empty';
  if (name.length > MAX_BRANCH_LENGTH) return `must be at most ${MAX_BRANCH_LENGTH} characters`;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'must not hold spaces, control characters or any of ~^:?*[\\';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return 'must not hold "..", "@{" or "//"';
  if (/^[/.]|[/.]$/.test(name) || name.endsWith('.lock') || name === '@')
    return 'must not start or end with "/" or ".", end with ".lock", or be "@"';
  return null;
}
