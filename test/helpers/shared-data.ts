// Tests that read third-party data kept outside the repository (real advisories, version-order fixtures, lockfiles of
// public projects, official JSON Schemas: src/infra/shared-data.ts). Where that folder is absent they are skipped,
// and the test file says so in one line on stderr (written directly: jest's console would add the call site).
//
// When the folder is absent, the block's function is not even run: tests generated from the data (one per line of
// a fixture) cannot be listed without it, and reads at collection time would fail the file. Reads belong inside the
// block (in its body, in beforeAll or in the tests), never at module scope.
import path from 'node:path';
import { hasSharedData, sharedDataDir, sharedDataPath } from '../../src/infra/shared-data';
import { projectRoot } from '../../src/infra/tools';

export { hasSharedData, sharedDataDir, sharedDataPath };

/** Jest loads this module afresh for every test file: one line per file, however many blocks it skips. */
let told = false;

function tellSkipped(): void {
  if (told) return;
  told = true;
  const file = expect.getState().testPath;
  const name = file ? path.relative(projectRoot(), file) : 'a test file';
  process.stderr.write(`skipped: ${name} needs third-party data at ${sharedDataDir()} (set SCANNER_SHARED_DATA)\n`);
}

/** `describe` when the third-party data is there; else a skipped block of one placeholder test, `fn` not run. */
export function describeWithSharedData(name: string, fn: () => void): void {
  if (hasSharedData()) {
    describe(name, fn);
    return;
  }
  tellSkipped();
  describe.skip(name, () => {
    test(`needs third-party data at ${sharedDataDir()}`, () => undefined);
  });
}

/** `test` when the third-party data is there, else `test.skip`: for a file whose other tests do not need it. */
export function itWithSharedData(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (hasSharedData()) {
    test(name, fn, timeout);
    return;
  }
  tellSkipped();
  test.skip(name, fn, timeout);
}
