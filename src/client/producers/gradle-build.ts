// A Gradle build (settings.gradle or settings.gradle.kts: a build root) → a schemaVersion 2 part, by running the
// build with an init script of our own (gradle-build-script.ts) that writes Gradle's resolution graph of every
// project and resolvable configuration; gradle-build-graph.ts turns that into the part. Unlike the lockfile
// producers this one runs a tool: Gradle alone knows the graph (conflict resolution, variants, project
// dependencies), and a build without dependency locking records it nowhere.
//
// Which Gradle: the build's own wrapper (./gradlew) when it is there and executable, since the build is written for
// that version; else `gradle` on PATH. Flags: --no-daemon (a CI job should leave no JVM behind), -q (only errors
// reach the log), the init script with -I, and the output folder as a system property. The configuration cache is
// turned off through its Gradle properties (a flag would be unknown to older Gradle): the task reads the project model
// at execution time. Network: CI machines are online and the build's repositories are what they are, so nothing is
// forced; SCANNER_GRADLE_OFFLINE=1 adds --offline (for machines whose Gradle caches are already filled). Timeout:
// SCANNER_GRADLE_TIMEOUT seconds, 600 by default.
import type { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { partFromGradleGraph } from './gradle-build-graph';
import { GRAPH_FORMAT, GRAPH_TASK, INIT_SCRIPT, OUT_PROPERTY } from './gradle-build-script';
import { nodeChildProcess } from '../builtins';
import { ToolMissingError } from '../errors';
import { inputError } from './npm-common';
import type { LockfileInput, ProducedPart, Producer } from './types';

export interface GradleBuildOptions {
  /** The environment Gradle runs in (PATH, JAVA_HOME, GRADLE_USER_HOME) and the SCANNER_GRADLE_* settings are read
   *  from; process.env at the time of the run by default. */
  env?: () => NodeJS.ProcessEnv;
}

const DEFAULT_TIMEOUT_SECONDS = 600;
/** How much of Gradle's output an error shows: the end, where Gradle puts "What went wrong". */
const TAIL_LINES = 30;

const INSTALL_HINT =
  'add the Gradle wrapper (gradlew) to the build or install Gradle (Debian/Ubuntu: apt-get install -y gradle), ' +
  "or scan the build's gradle.lockfile files instead of the build";

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function tail(text: string): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-TAIL_LINES).join('\n');
}

function timeoutSeconds(file: string, env: NodeJS.ProcessEnv): number {
  const raw = env.SCANNER_GRADLE_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_SECONDS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw inputError(file, `SCANNER_GRADLE_TIMEOUT must be a number of seconds, not ${JSON.stringify(raw)}`);
  return n;
}

/** The Gradle command line for this build (exported for tests). */
export function gradleCommand(
  buildDir: string,
  env: NodeJS.ProcessEnv,
  outDir: string,
  initScript: string,
): { command: string; args: string[]; warnings: string[] } {
  const wrapper = path.join(buildDir, 'gradlew');
  const warnings: string[] = [];
  let command = 'gradle';
  if (isExecutable(wrapper)) command = wrapper;
  else if (fs.existsSync(wrapper))
    warnings.push(
      'gradlew is not executable (chmod +x gradlew); gradle from PATH was used instead, which may be another Gradle version',
    );
  const args = [
    '--no-daemon',
    '-q',
    '-I',
    initScript,
    `-D${OUT_PROPERTY}=${outDir}`,
    '-Dorg.gradle.configuration-cache=false',
    '-Dorg.gradle.unsafe.configuration-cache=false',
    ...(env.SCANNER_GRADLE_OFFLINE === '1' ? ['--offline'] : []),
    GRAPH_TASK,
  ];
  return { command, args, warnings };
}

function readOutput(file: string, outDir: string): unknown[] {
  return fs
    .readdirSync(outDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(outDir, f), 'utf8')) as unknown;
      } catch (err) {
        throw inputError(file, `the ${GRAPH_FORMAT} output of Gradle is not valid JSON (${(err as Error).message})`);
      }
    });
}

function run(input: LockfileInput, env: NodeJS.ProcessEnv): ProducedPart {
  const file = input.path;
  const buildDir = input.absoluteDir;
  if (buildDir === undefined)
    throw inputError(file, 'a Gradle build can only be read where it is on disk (no folder was given)');
  const timeout = timeoutSeconds(file, env);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-gradle-'));
  try {
    const initScript = path.join(tmp, 'scanner-init.gradle');
    const outDir = path.join(tmp, 'out');
    const logFile = path.join(tmp, 'gradle.log');
    fs.writeFileSync(initScript, INIT_SCRIPT);
    fs.mkdirSync(outDir);
    const { command, args, warnings } = gradleCommand(buildDir, env, outDir, initScript);
    // Output to a file, not a pipe: a chatty build cannot overflow a buffer, and the tail is there for errors.
    const log = fs.openSync(logFile, 'w');
    let r: ReturnType<typeof spawnSync>;
    try {
      r = nodeChildProcess().spawnSync(command, args, {
        cwd: buildDir,
        env,
        stdio: ['ignore', log, log],
        timeout: timeout * 1000,
        killSignal: 'SIGKILL',
      });
    } finally {
      fs.closeSync(log);
    }
    const output = () => tail(fs.readFileSync(logFile, 'utf8'));
    const err = r.error as NodeJS.ErrnoException | undefined;
    if (err?.code === 'ENOENT')
      throw new ToolMissingError(`${file}: neither ./gradlew nor gradle on PATH: ${INSTALL_HINT}`);
    if (err?.code === 'ETIMEDOUT')
      throw inputError(
        file,
        `Gradle did not finish within ${timeout} s (SCANNER_GRADLE_TIMEOUT); its output ended with:\n${output()}`,
      );
    if (err) throw inputError(file, `${command} could not be run (${err.message})`);
    if (r.status !== 0) {
      const how = r.status === null ? `was killed (${r.signal})` : `failed (exit ${r.status})`;
      throw inputError(
        file,
        `${path.basename(command)} ${GRAPH_TASK} (with the scanner init script) ${how}; its output ended with:\n${output()}`,
      );
    }
    const part = partFromGradleGraph(file, readOutput(file, outDir));
    return { ...part, warnings: [...warnings, ...part.warnings] };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function makeGradleBuildProducer(opts: GradleBuildOptions = {}): Producer {
  return {
    format: 'Gradle build',
    matches: (fileName) => fileName === 'settings.gradle' || fileName === 'settings.gradle.kts',
    produce: (input) => run(input, (opts.env ?? (() => process.env))()),
  };
}

export const gradleBuildProducer: Producer = makeGradleBuildProducer();
