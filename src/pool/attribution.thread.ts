// piscina thread entry for v2 attribution: walks one shard of resolutions over the shared graph arrays (nothing of
// the graph is copied: every array sits on a SharedArrayBuffer) and moves its output buffer back, not a clone.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { walkShard, type ShardOutput, type ShardTask } from '../domain/attribution/v2-walk';

export default function run(task: ShardTask): ShardOutput {
  const out = walkShard(task);
  const wrapper = {
    get [transferableSymbol]() {
      return [out.data.buffer];
    },
    get [valueSymbol]() {
      return out;
    },
  };
  return move(wrapper as never) as unknown as ShardOutput;
}
