// Flags the sidecar and the gateway read alike: the service's URL, labels, and what the service's refusals mean.
import { InputError, ServiceError } from '../errors';
import { describeAnswer, type Answer, type Link } from './loop';

/** --server, else SCANNER_URL, else the state file's server; an http(s) URL. */
export function resolveServer(flag: string | undefined, env: NodeJS.ProcessEnv, fromState: string | undefined): string {
  const server = flag ?? (env.SCANNER_URL || undefined) ?? fromState;
  if (!server) throw new InputError('no service: pass --server URL or set SCANNER_URL');
  if (!/^https?:\/\/[^/]/i.test(server)) throw new InputError(`--server ${JSON.stringify(server)}: an http(s) URL`);
  return server;
}

const LABEL_KEY = /^[A-Za-z0-9._/-]{1,63}$/;

/** `--labels k=v,k2=v2` (the service's label rules: keys of 1 to 63 of A-Z a-z 0-9 . _ / -); "" is no labels. */
export function parseLabelsFlag(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const i = item.indexOf('=');
    const key = i < 0 ? item : item.slice(0, i);
    if (i < 0 || !LABEL_KEY.test(key))
      throw new InputError(
        `--labels ${JSON.stringify(item)}: expected key=value, a key of 1 to 63 characters of A-Z a-z 0-9 . _ / -`,
      );
    if (Object.prototype.hasOwnProperty.call(labels, key)) throw new InputError(`--labels: ${key} given twice`);
    Object.defineProperty(labels, key, {
      value: item.slice(i + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return labels;
}

/** Positional arguments are not taken by the agents. */
export function noPositionals(command: string, positionals: string[]): void {
  if (positionals.length)
    throw new InputError(
      `scanner ${command} takes no arguments (got ${JSON.stringify(positionals[0])}); see scanner ${command} --help`,
    );
}

/**
 * An answer the agent cannot go on with: 400/422 are the caller's input (exit 2), anything else a service error
 * (exit 3). The message is redacted.
 */
export function refusal(link: Link, what: string, a: Answer, hint = ''): Error {
  const msg = link.redact(`${what}: the service refused it: ${describeAnswer(a)}${hint ? `. ${hint}` : ''}`);
  return a.status === 400 || a.status === 422 ? new InputError(msg) : new ServiceError(msg);
}

/** The id and credential of a 201, checked: a body without them is not the service's answer. */
export function credentialAnswer(
  link: Link,
  what: string,
  a: Answer,
  key: 'host' | 'gateway',
): { id: string; credential: string; record: Record<string, unknown> } {
  const body = a.body as Record<string, unknown> | undefined;
  const record = body?.[key] as Record<string, unknown> | undefined;
  const credential = body?.credential;
  if (!record || typeof record.id !== 'string' || !record.id || typeof credential !== 'string' || !credential) {
    throw new ServiceError(
      `${what}: answered ${a.status} without a ${key} and its credential: is ${link.server} the scanning service?`,
    );
  }
  link.secret(credential);
  return { id: record.id, credential, record };
}
