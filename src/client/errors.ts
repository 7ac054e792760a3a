// Exit codes and the errors that carry them. Every command ends in one of these four.
export const EXIT = {
  /** Nothing at or above the gate. */
  ok: 0,
  /** Findings at or above the gate. */
  findings: 1,
  /** Usage or input error: a bad flag, nothing to scan, a snapshot the service refused with 413/422. */
  input: 2,
  /** Service error: unreachable after retries, 401/403, 5xx, scan failed, timeout. */
  service: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A usage or input problem: exit 2. */
export class InputError extends Error {
  readonly exitCode = EXIT.input;
}

/** The service could not do what was asked: exit 3. */
export class ServiceError extends Error {
  readonly exitCode = EXIT.service;
}

/** A build tool a producer needs is not installed (exit 2 unless the caller has another source for the same files). */
export class ToolMissingError extends InputError {}
