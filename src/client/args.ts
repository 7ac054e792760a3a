// Command-line parsing shared by the commands: node's own parseArgs (strict: an unknown flag is a usage error, exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError } from './errors';
import type { SnapshotMetadata } from '../shared/types';

export const USAGE = `usage:
  scanner snapshot [PATH...] [--project P] [--output FILE] [--suppressions FILE]
      write the dependency snapshot(s) of the lockfiles in PATH (default .), one per ecosystem
  scanner scan [PATH...] --project P [--server URL] [--fail-on critical|high|medium|low|none] [--fail-on-kev]
               [--format table|json|sarif|cyclonedx|markdown] [--output FILE] [--timeout SECONDS] [--view introduced|affected] [--rescan]
               [--gate new|all] [--baseline auto|SCAN_ID] [--baseline-missing all|pass|fail]
      upload the snapshot(s), wait for the scan, report its findings and gate on them
      --fail-on-kev: also fail on any unsuppressed finding listed in CISA's Known Exploited Vulnerabilities catalog,
      whatever its severity and --fail-on (--fail-on none --fail-on-kev: only on those; with --gate new, only on
      added ones); SCANNER_FAIL_ON_KEV=1|true sets it too. The table shows KEV (marker) and EPSS (score, %) columns
      when the service serves them; the json report gives kev and epss on every finding (null when none)
      --gate new: only findings the change adds fail (compared with --baseline: auto is the default branch's scan of
      the base commit, else its latest before); default new on a pull/merge request or merge queue, else all
      (SCANNER_GATE sets it too); --baseline-missing: with no baseline, gate every finding (all, the default, with a
      warning), none (pass) or fail
      --format markdown: the pull-request comment (new, disclosed, fixed findings, suppressions added, dependency
      changes); on GitHub Actions also appended to $GITHUB_STEP_SUMMARY
      --format cyclonedx: write the CycloneDX 1.6 SBOM of what was uploaded (GET /v1/scans/{id}/sbom's document)
      instead of the report, one per line on stdout; with several scans, --output a.json writes a.<ecosystem>.json

  common: [--commit SHA] [--ref REF] [--run-url URL]   metadata (default: from the CI environment or git)
          [--base-ref REF] [--base-commit SHA]          on a pull or merge request, the branch it goes into and the
                                                        commit of it compared with (default: from the CI)
          [--suppressions FILE]                         suppressions kept in the repository, sent with every snapshot
                                                        (default: .scanner/suppressions.yaml of the scanned folder, if
                                                        any; an invalid file exits 2; docs/client.md)
  environment: SCANNER_URL (the service), SCANNER_TOKEN (an API key with sca:upload, scans:read, findings:read),
               SCANNER_PROJECT (default of --project), SCANNER_GATE, SCANNER_FAIL_ON_KEV
  exit codes: 0 nothing at or above the gate; 1 findings at or above it (with --fail-on-kev also: listed in KEV);
              2 usage or input error; 3 service error (unreachable, 401/403, 5xx, scan failed, timeout)
  scanner sidecar [--server URL] [--registration-token FILE] [--state FILE] [--labels k=v,...] [--gateway ID]
                  [--mcp-interval S] [--once]
      register this machine as a host (the token read from FILE, - for stdin) and heartbeat until stopped; report
      its MCP configuration hourly
  scanner gateway [--server URL] [--enrollment-token FILE --network-scope CIDR,...] [--name N] [--state FILE]
                  [--interval SECONDS] [--once]
      enroll this machine as a gateway and heartbeat until stopped
      (scanner sidecar --help, scanner gateway --help; exit codes: 0 stopped by SIGINT/SIGTERM, 2 usage or input
      error, 3 refused with 401 or the service unavailable)
  scanner mcp scan [--server URL] [--host-id ID | --hostname NAME] [--introspect] [--timeout S] [--dry-run]
                   [--format table|json]
      upload the MCP servers configured on this machine (scanner mcp --help)
  scanner mcp hook --client claude-code|cursor [--fail open|closed] [--timeout S]
      an agent's pre-tool hook: one usage event, the service's decision as the agent's answer
  scanner --version`;

export const COMMON_OPTIONS = {
  project: { type: 'string' },
  output: { type: 'string', short: 'o' },
  commit: { type: 'string' },
  ref: { type: 'string' },
  'run-url': { type: 'string' },
  'base-ref': { type: 'string' },
  'base-commit': { type: 'string' },
  suppressions: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new InputError(`${(err as Error).message}\n${USAGE}`);
  }
}

/** The snapshot metadata the common flags give (each undefined when not passed: the CI or git fills it in). */
export function metadataFlags(values: {
  commit?: string;
  ref?: string;
  'run-url'?: string;
  'base-ref'?: string;
  'base-commit'?: string;
}): SnapshotMetadata {
  return {
    commit: values.commit,
    ref: values.ref,
    runUrl: values['run-url'],
    baseRef: values['base-ref'],
    baseCommit: values['base-commit'],
  };
}
