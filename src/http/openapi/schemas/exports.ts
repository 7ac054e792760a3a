// Response schemas of the exports of a scan: GET /v1/scans/{scanId}/sbom and /vex (src/http/scans/exports.ts, built
// by src/shared/cyclonedx, src/domain/cyclonedx and src/domain/openvex). They describe the subset of CycloneDX 1.6 and
// of OpenVEX 0.2.0 this service writes, field by field; every document also validates against the official schema
// (http://cyclonedx.org/schema/bom-1.6.schema.json, OpenVEX's openvex_json_schema_0.2.0.json), which tests check on
// real answers.
import { JUSTIFICATION, OPENVEX_CONTEXT } from '../../../domain/openvex/openvex';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES } from '../../../domain/triage/analysis';
import { SEVERITIES } from '../../../shared/types';
import { ref, str, strArray, timestamp } from './common';

const severity = { type: 'string', enum: [...SEVERITIES] } as const;

const property = {
  type: 'object',
  required: ['name', 'value'],
  additionalProperties: false,
  properties: { name: { type: 'string', pattern: '^scanner:' }, value: str },
} as const;
const properties = { type: 'array', items: property } as const;

const source = {
  type: 'object',
  required: ['name', 'url'],
  additionalProperties: false,
  description:
    "Where the advisory id is published: NVD (CVE-...), GITHUB (GHSA-...), else OSV (the names Dependency-Track's vulnerability sources use).",
  properties: { name: { type: 'string', enum: ['NVD', 'GITHUB', 'OSV'] }, url: str },
} as const;

/** The fields both documents open with. */
function bom(
  kind: 'sbom' | 'vex',
  extra: { required: string[]; properties: Record<string, unknown> },
  description: string,
) {
  return {
    type: 'object',
    description,
    required: [
      '$schema',
      'bomFormat',
      'specVersion',
      'serialNumber',
      'version',
      'metadata',
      'components',
      ...extra.required,
    ],
    additionalProperties: false,
    properties: {
      $schema: { const: 'http://cyclonedx.org/schema/bom-1.6.schema.json' },
      bomFormat: { const: 'CycloneDX' },
      specVersion: { const: '1.6' },
      serialNumber: {
        type: 'string',
        pattern: '^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
        description: `A name-based UUID (version 5) of the scan id and "${kind}": the same scan always gives the same document.`,
      },
      version: { const: 1 },
      metadata: ref(kind === 'sbom' ? 'CycloneDxSbomMetadata' : 'CycloneDxVexMetadata'),
      ...extra.properties,
    },
  };
}

function metadata(timestampText: string, component: Record<string, unknown>) {
  return {
    type: 'object',
    required: ['timestamp', 'tools', 'component', 'properties'],
    additionalProperties: false,
    properties: {
      timestamp: { ...timestamp, description: timestampText },
      tools: {
        type: 'object',
        required: ['components'],
        additionalProperties: false,
        properties: { components: { type: 'array', minItems: 1, maxItems: 1, items: ref('CycloneDxTool') } },
      },
      component,
      properties: {
        ...properties,
        description:
          "scanner:scan (the scan id), scanner:ecosystem, and the snapshot's metadata when it has them: scanner:commit, scanner:ref, scanner:runUrl, scanner:baseRef, scanner:baseCommit.",
      },
    },
  };
}

const projectFields = {
  type: { const: 'application' },
  'bom-ref': { type: 'string', pattern: '^prj_', description: 'The project id.' },
  name: { ...str, description: "The project's slug (Scan.target)." },
} as const;

export const exportSchemas = {
  CycloneDxTool: {
    type: 'object',
    description: 'This service.',
    required: ['type', 'name', 'version'],
    additionalProperties: false,
    properties: { type: { const: 'application' }, name: { const: 'supply-chain-scanner' }, version: str },
  },
  CycloneDxPackage: {
    type: 'object',
    description:
      'A package of the snapshot: one per inventory id, so nodes the inventory merges (names the ecosystem does not tell apart) are one component, named by the smallest of their names. ' +
      'group/name as CycloneDX tools write them (Maven groupId and artifactId; an npm scope and the rest). ' +
      "A version over 1,024 characters (the schema's cap) is left out and kept whole in the property scanner:version.",
    required: ['type', 'bom-ref', 'name', 'purl'],
    additionalProperties: false,
    properties: {
      type: { const: 'library' },
      'bom-ref': {
        type: 'string',
        pattern: '^dep_',
        description: "The package's inventory id (GET /v1/dependencies item id; a finding's packageRef).",
      },
      group: str,
      name: str,
      version: { type: 'string', maxLength: 1024 },
      purl: {
        type: 'string',
        pattern: '^pkg:(npm|pypi|maven)/',
        description:
          'npm: the name lowercased, a scope as namespace with its @ encoded (pkg:npm/%40scope/name@1.0.0); pypi: the PEP 503 name (pkg:pypi/foo-bar@1.0); maven: group:artifact as pkg:maven/group/artifact@1.0.',
      },
      properties,
    },
  },
  CycloneDxModule: {
    type: 'object',
    description:
      "A first-party module: a v2 module (name: its path; properties scanner:team and scanner:attribute:<key> from its labels), or for a v1 scan a manifest its paths start from (a root's manifest, else the snapshot's first manifest, else the root's module).",
    required: ['type', 'bom-ref', 'name'],
    additionalProperties: false,
    properties: {
      type: { const: 'application' },
      'bom-ref': {
        type: 'string',
        pattern: '^mod_',
        description: "mod_ + a hash of (project id, ecosystem, path): stable across the project's scans.",
      },
      name: str,
      properties,
    },
  },
  CycloneDxDependency: {
    type: 'object',
    description: 'dependsOn: sorted bom-refs, without repeats; absent when the component depends on nothing.',
    required: ['ref'],
    additionalProperties: false,
    properties: { ref: str, dependsOn: { ...strArray, minItems: 1, uniqueItems: true } },
  },
  CycloneDxSbomMetadata: metadata("The scan's startedAt (when its snapshot was uploaded).", {
    type: 'object',
    description: 'The project, made of its first-party modules.',
    required: ['type', 'bom-ref', 'name'],
    additionalProperties: false,
    properties: { ...projectFields, components: { type: 'array', items: ref('CycloneDxModule') } },
  }),
  CycloneDxSbom: bom(
    'sbom',
    {
      required: ['dependencies'],
      properties: {
        components: {
          type: 'array',
          items: ref('CycloneDxPackage'),
          description: 'Sorted by name (as the snapshot writes it), then version, then bom-ref.',
        },
        dependencies: {
          type: 'array',
          items: ref('CycloneDxDependency'),
          description:
            'One entry per component: the project (depends on every module), the modules (the packages they declare and the modules they depend on), then the packages (their dependencies), in component order. ' +
            "v2: from the resolutions' vertex edges, the union over all resolutions (nodes[].dependencies are not read) plus modules[].dependencies; v1: roots' and nodes' dependencies.",
        },
      },
    },
    "A CycloneDX 1.6 SBOM of the scan's snapshot. Deterministic: the same scan gives the same bytes; `scanner scan --format cyclonedx` writes the same document for the scan it made.",
  ),
  CycloneDxRating: {
    type: 'object',
    required: ['source', 'severity', 'method'],
    additionalProperties: false,
    description:
      "The first rating is the finding's own severity (source: this service, method other); then one per CVSS vector the advisory group's stored advisories carry, scored.",
    properties: {
      source: {
        oneOf: [
          source,
          {
            type: 'object',
            required: ['name'],
            additionalProperties: false,
            properties: { name: { const: 'supply-chain-scanner' } },
          },
        ],
      },
      score: { type: 'number', minimum: 0, maximum: 10 },
      severity,
      method: { type: 'string', enum: ['CVSSv2', 'CVSSv3', 'CVSSv31', 'CVSSv4', 'other'] },
      vector: str,
      justification: str,
    },
  },
  CycloneDxVulnerability: {
    type: 'object',
    description: 'A finding.',
    required: ['bom-ref', 'id', 'source', 'ratings', 'affects', 'properties'],
    additionalProperties: false,
    properties: {
      'bom-ref': { type: 'string', pattern: '^fnd_', description: 'The finding id.' },
      id: { ...str, description: "The finding's advisory id (Finding.cve)." },
      source,
      references: {
        type: 'array',
        description: "The other ids of the advisory's alias group (Finding.aliases).",
        items: {
          type: 'object',
          required: ['id', 'source'],
          additionalProperties: false,
          properties: { id: str, source },
        },
      },
      ratings: { type: 'array', minItems: 1, items: ref('CycloneDxRating') },
      description: { ...str, description: 'The advisory summary.' },
      recommendation: {
        ...str,
        description: 'When the finding has a fixedVersion: "Upgrade <package> to <fixedVersion>."',
      },
      published: timestamp,
      analysis: {
        type: 'object',
        required: ['state'],
        additionalProperties: false,
        description:
          "The finding's alert's current triage analysis (PUT /v1/alerts/{alertId}/analysis), when it has not expired and covers the finding's installed version; absent otherwise " +
          "(a finding without an analysis carries none: a suppression is said in properties, not here). CycloneDX's field names and values; empty fields left out.",
        properties: {
          state: { type: 'string', enum: [...ANALYSIS_STATES] },
          justification: { type: 'string', enum: [...JUSTIFICATIONS] },
          response: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...RESPONSES] } },
          detail: str,
        },
      },
      affects: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: {
          type: 'object',
          required: ['ref'],
          additionalProperties: false,
          properties: {
            ref: {
              type: 'string',
              pattern: '^dep_',
              description: "The finding's packageRef: the bom-ref of its package in this document and in the SBOM.",
            },
            versions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['version', 'status'],
                additionalProperties: false,
                properties: { version: { type: 'string', maxLength: 1024 }, status: { const: 'affected' } },
              },
            },
          },
        },
      },
      properties: {
        ...properties,
        description:
          "scanner:path: the finding's path as a JSON array. A suppressed finding also has scanner:suppressed (true), scanner:suppressionSource (snapshot, analysis or rule: what suppressed it when the scan was processed), " +
          "scanner:suppressionReason (when there is one), scanner:suppressionExpires (a snapshot suppression's expiry date, when it has one) and scanner:ruleId (a rule's).",
      },
    },
  },
  CycloneDxVexMetadata: metadata("The scan's finishedAt (when its findings were made).", {
    type: 'object',
    description: 'The project.',
    required: ['type', 'bom-ref', 'name'],
    additionalProperties: false,
    properties: projectFields,
  }),
  CycloneDxVex: bom(
    'vex',
    {
      required: ['vulnerabilities'],
      properties: {
        components: {
          type: 'array',
          items: ref('CycloneDxPackage'),
          description: "The packages the findings affect, as in the SBOM (same bom-ref and purl), in the SBOM's order.",
        },
        vulnerabilities: {
          type: 'array',
          items: ref('CycloneDxVulnerability'),
          description:
            'One per finding, suppressed ones included, in the findings list order (severity descending, then id).',
        },
      },
    },
    "A CycloneDX 1.6 VEX of the scan's findings.",
  ),
  OpenVexStatement: {
    type: 'object',
    description:
      "The analysis in force on one finding's alert, for its (advisory, package). The project is the product, the package its subcomponent. " +
      'status: not_affected → not_affected, false_positive → not_affected (justification vulnerable_code_not_present), exploitable → affected, resolved → fixed, in_triage → under_investigation.',
    required: ['vulnerability', 'timestamp', 'products', 'status', 'status_notes'],
    additionalProperties: false,
    properties: {
      vulnerability: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { ...str, description: "The finding's advisory id (Finding.cve)." },
          aliases: { ...strArray, uniqueItems: true, description: "The alias group's other ids; absent when none." },
        },
      },
      timestamp: { ...timestamp, description: "The analysis's updatedAt." },
      products: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: {
          type: 'object',
          required: ['@id', 'subcomponents'],
          additionalProperties: false,
          properties: {
            '@id': {
              type: 'string',
              pattern: '^urn:supply-chain-scanner:project:prj_',
              description: 'The project: urn:supply-chain-scanner:project:<project id>.',
            },
            subcomponents: {
              type: 'array',
              minItems: 1,
              maxItems: 1,
              items: {
                type: 'object',
                required: ['@id'],
                additionalProperties: false,
                properties: {
                  '@id': {
                    type: 'string',
                    pattern: '^pkg:',
                    description: "The package's purl (as in the CycloneDX documents), its installed version included.",
                  },
                },
              },
            },
          },
        },
      },
      status: { type: 'string', enum: ['not_affected', 'affected', 'fixed', 'under_investigation'] },
      justification: {
        type: 'string',
        enum: [...new Set(Object.values(JUSTIFICATION))].sort(),
        description:
          'not_affected only: code_not_present → vulnerable_code_not_present, code_not_reachable → vulnerable_code_not_in_execute_path, requires_configuration, requires_dependency and requires_environment → ' +
          'vulnerable_code_cannot_be_controlled_by_adversary, protected_by_compiler, protected_at_runtime, protected_at_perimeter and protected_by_mitigating_control → inline_mitigations_already_exist; a false_positive: vulnerable_code_not_present.',
      },
      impact_statement: { ...str, description: "not_affected only: the analysis's detail." },
      action_statement: {
        ...str,
        description:
          "affected only: the analysis's detail, else its responses in words, else the fixed version to upgrade to.",
      },
      action_statement_timestamp: { ...timestamp, description: "affected only: the analysis's updatedAt." },
      status_notes: {
        ...str,
        description:
          'The analysis in CycloneDX\'s words ("Triage analysis (CycloneDX): state …; justification …; response …."), after its detail for fixed and under_investigation.',
      },
    },
  },
  OpenVex: {
    type: 'object',
    description:
      "An OpenVEX 0.2.0 document of the triage analyses in force on a completed scan's findings' alerts: one statement per (advisory, package) whose finding has one; findings without an analysis make none.",
    required: ['@context', '@id', 'author', 'timestamp', 'version', 'tooling', 'statements'],
    additionalProperties: false,
    properties: {
      '@context': { const: OPENVEX_CONTEXT },
      '@id': {
        type: 'string',
        pattern: '^urn:supply-chain-scanner:scan:scn_[^:]+:openvex$',
        description: 'urn:supply-chain-scanner:scan:<scan id>:openvex: the same for every answer about the scan.',
      },
      author: { ...str, description: "The organization's name (its members and API keys made the analyses)." },
      timestamp: { ...timestamp, description: "The scan's finishedAt." },
      last_updated: {
        ...timestamp,
        description:
          "The latest statement's timestamp (an analysis's updatedAt), when later than the scan's finishedAt.",
      },
      version: { const: 1 },
      tooling: { ...str, description: 'This service and its version: "supply-chain-scanner <version>".' },
      statements: {
        type: 'array',
        minItems: 1,
        items: ref('OpenVexStatement'),
        description: 'In the findings list order (severity descending, then id).',
      },
    },
  },
};
