// The one-shot hash gives the ids every earlier version gave: stored findings, attributions and inventory items keep
// their ids across the change (the digest is the one createHash computes, for text and bytes alike).
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../../src/shared/sha256';
import { dependencyId } from '../../../src/shared/inventory-ids';
import { findingId } from '../../../src/domain/findings';

const classic = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

test.each(['', 'a', 'prj_01\0javascript\0lodash\x004.17.20', 'é ✓ 𝄞', 'x'.repeat(100_000)])(
  'sha256Hex(%#) is the createHash digest, of the text and of its bytes',
  (text) => {
    expect(sha256Hex(text)).toBe(classic(text));
    expect(sha256Hex(Buffer.from(text))).toBe(classic(Buffer.from(text)));
  },
);

test('dependency and finding ids are the ones earlier versions derived', () => {
  expect(dependencyId('prj_01', 'javascript', 'lodash', '4.17.20')).toBe(
    'dep_' + classic('prj_01\0javascript\0lodash\x004.17.20').slice(0, 24),
  );
  expect(dependencyId('prj_01', 'javascript', 'lodash', '4.17.20')).toBe('dep_7487525c9d76414f3c7a05bd');
  expect(findingId('scn_1', 'GHSA-x', 'lodash', '4.17.20')).toBe(
    'fnd_' + classic('scn_1\0GHSA-x\0lodash\x004.17.20').slice(0, 24),
  );
});
