// Zip archives for advisory tests, written by python3's zipfile (deflated).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes `entries` to a zip at `file`. `declare` overwrites the uncompressed size that an entry's local header and
 * central directory record state, the data staying as it is: a crafted or lying archive.
 */
export function makeZip(file: string, entries: Record<string, string>, declare: Record<string, number> = {}): string {
  const script = `
import json, struct, sys, zipfile
file, entries, declare = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
with zipfile.ZipFile(file, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, text in entries.items():
        z.writestr(name, text)
infos = {i.filename: i for i in zipfile.ZipFile(file).infolist()}
data = bytearray(open(file, 'rb').read())
for name, size in declare.items():
    struct.pack_into('<I', data, infos[name].header_offset + 22, size)
    i = data.find(b'PK\\x01\\x02')
    while i != -1:
        n = struct.unpack_from('<H', data, i + 28)[0]
        if data[i + 46:i + 46 + n] == name.encode():
            struct.pack_into('<I', data, i + 24, size)
        i = data.find(b'PK\\x01\\x02', i + 1)
open(file, 'wb').write(data)
`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('python3', ['-c', script, file, JSON.stringify(entries), JSON.stringify(declare)]);
  return file;
}

/** A minimal OSV advisory of an npm package; `pad` characters of details make it bigger. */
export const osvText = (id: string, pad = 0) =>
  JSON.stringify({
    id,
    modified: '2024-01-01T00:00:00Z',
    details: 'x'.repeat(pad),
    affected: [{ package: { ecosystem: 'npm', name: 'x' } }],
  });
