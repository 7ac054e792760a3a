// piscina thread entry: one exported function over a transferable task (the raw body, moved in). The compressed
// body goes back moved as well (a transferable wrapper), not cloned; the summary is a few hundred bytes.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { prepareUpload, type PrepOutcome } from './upload-prep';

export default function run(raw: Uint8Array): PrepOutcome {
  const out = prepareUpload(raw);
  if (!out.ok) return out;
  const gz = out.value.gzipped;
  // Only a buffer that owns its whole ArrayBuffer can be moved without taking unrelated memory along.
  if (gz.byteOffset !== 0 || gz.byteLength !== gz.buffer.byteLength) return out;
  const wrapper = {
    get [transferableSymbol]() {
      return [gz.buffer];
    },
    get [valueSymbol]() {
      return out;
    },
  };
  return move(wrapper as never) as unknown as PrepOutcome;
}
