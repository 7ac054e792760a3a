// Derived-path output budget (one of the upload limits, docs/api.md): segments are the elements of every Finding.path,
// attributions[].path and origins[].path of a scan; characters the sum of their lengths.
export const MAX_PATH_CHARACTERS = 8_000_000;
export const MAX_PATH_SEGMENTS = 1_000_000;

export class AttributionLimitExceeded extends Error {
  constructor(
    readonly segments: number,
    readonly characters: number,
  ) {
    super(
      `derived-path output of ${segments} segments and ${characters} characters exceeds ${MAX_PATH_SEGMENTS} segments or ${MAX_PATH_CHARACTERS} characters`,
    );
    this.name = 'AttributionLimitExceeded';
  }
}

/** Sums the paths; throws AttributionLimitExceeded as soon as either limit is passed. */
export function derivePathBudget(paths: Iterable<string[]>): { segments: number; characters: number } {
  let segments = 0;
  let characters = 0;
  for (const path of paths) {
    segments += path.length;
    for (const p of path) characters += p.length;
    if (segments > MAX_PATH_SEGMENTS || characters > MAX_PATH_CHARACTERS)
      throw new AttributionLimitExceeded(segments, characters);
  }
  return { segments, characters };
}
