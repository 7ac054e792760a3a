// piscina thread entry for v2 attribution: walks a batch of shards over the shared graph arrays (nothing of the
// graph is copied: every array sits on a SharedArrayBuffer) and moves their output buffers back, not clones.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { walkBatch, type ShardBatch, type ShardOutput } from '../domain/attribution/v2-walk';

export default function run(batch: ShardBatch): ShardOutput[] {
  const outputs = walkBatch(batch);
  const wrapper = {
    get [transferableSymbol]() {
      return outputs.map((o) => o.data.buffer);
    },
    get [valueSymbol]() {
      return outputs;
    },
  };
  return move(wrapper as never) as unknown as ShardOutput[];
}
