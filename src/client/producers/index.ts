// Every producer the client has, in the order their files are tried. One file per format.
import { gradleLockfileProducer } from './gradle-lockfile';
import { npmLockProducer } from './npm-lock';
import { pnpmLockProducer } from './pnpm-lock';
import type { Producer } from './types';
import { yarnLockProducer } from './yarn-lock';

export const PRODUCERS: readonly Producer[] = [npmLockProducer, pnpmLockProducer, yarnLockProducer, gradleLockfileProducer];
