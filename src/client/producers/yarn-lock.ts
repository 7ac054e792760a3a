// yarn.lock → a snapshot part. Two unrelated formats share the name: yarn 1's own text format (yarn-v1.ts) and
// yarn 2+'s YAML with a `__metadata` entry (yarn-berry.ts). Both record a graph of resolved packages, so the part is
// schemaVersion 2; yarn-graph.ts builds it from what either format resolved.
import type { Producer } from './types';
import { graphBerry } from './yarn-berry';
import { buildPart } from './yarn-graph';
import { graphV1 } from './yarn-v1';

/** yarn 2+ writes `__metadata:` as the first key, at the start of a line; yarn 1 never does. */
const isBerry = (text: string) => text.startsWith('__metadata:') || text.includes('\n__metadata:');

export const yarnLockProducer: Producer = {
  format: 'yarn.lock',
  matches: (fileName) => fileName === 'yarn.lock',
  produce: (input) => buildPart(isBerry(input.text) ? graphBerry(input) : graphV1(input)),
};
