// The API's resource shapes as the app reads them: names for the schemas of the service's OpenAPI document (GET
// /v1/openapi.json), whose types tools/openapi-types.js generates into api-types.gen.ts at build time. A field the
// app reads that the document lacks, or describes otherwise than the server answers, is fixed in the document's
// schemas (src/http/openapi/schemas/*.ts), not here. Only shapes the app builds itself are declared in web code.
import type { components } from './api-types.gen';

type Schemas = components['schemas'];

/**
 * `true` when the list L names every member of the union U, else the members it lacks. With `as const satisfies
 * readonly U[]` (nothing outside U) as `type ... = Checked<ListsEvery<U, typeof LIST>>`, a runtime list of an enum
 * of the document fails the type-check when the server adds or drops a member.
 */
export type ListsEvery<U, L extends readonly U[]> = [Exclude<U, L[number]>] extends [never]
  ? true
  : { missing: Exclude<U, L[number]> };
export type Checked<T extends true> = T;

// ---- scans, findings, projects, the dependency inventory
export type Severity = Schemas['Severity'];
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const satisfies readonly Severity[];
export type SeveritiesListed = Checked<ListsEvery<Severity, typeof SEVERITIES>>;
export type SeverityCounts = Schemas['SeverityCounts'];

export type Scan = Schemas['Scan'];
export type ScanList = Schemas['ScanList'];
export type ScanStatus = Scan['status'];
export type ScanModule = Schemas['ScanModule'];
/** A module as GET /v1/scans/{scanId}/modules lists it. */
export type ScanModuleWithCounts = Schemas['ScanModuleWithCounts'];
export type ScanModuleList = Schemas['ScanModuleList'];
export type Finding = Schemas['Finding'];
export type Origin = Schemas['FindingOrigin'];
export type FindingsPage = Schemas['FindingList'];
export type AttributionItem = Schemas['AttributionItem'];
export type AttributionList = Schemas['AttributionList'];
export type AttributionPath = Schemas['AttributionPath'];
export type Project = Schemas['Project'];
export type ProjectList = Schemas['ProjectList'];
export type Dependency = Schemas['Dependency'];
export type DependencyList = Schemas['DependencyList'];
export type Ecosystem = Dependency['ecosystem'];
/** Where a package is used (GET /v1/dependencies/usages): each project's latest scan of an ecosystem that holds it. */
export type DependencyUsage = Schemas['DependencyUsage'];
export type DependencyUsageList = Schemas['DependencyUsageList'];
/** An advisory by any id of its alias group, with the organization's open alerts of it by project (GET /v1/advisories/{id}). */
export type AdvisoryPage = Schemas['AdvisoryPage'];
export type AdvisoryDetail = Schemas['AdvisoryDetail'];
export type AdvisoryProject = Schemas['AdvisoryProject'];

// ---- project alerts: one vulnerability of one project and ecosystem across its tracked scans (its history of events)
export type Alert = Schemas['Alert'];
export type AlertList = Schemas['AlertList'];
export type AlertStatus = Alert['status'];
export type AlertEvent = Schemas['AlertEvent'];
export type AlertEventType = AlertEvent['type'];
export type AlertHistory = Schemas['AlertHistory'];
/** An alert's analysis (triage: docs/triage.md), as alerts carry it; the bodies that set one, for one alert or many. */
export type Analysis = Schemas['Analysis'];
export type AnalysisState = Analysis['state'];
export type Justification = NonNullable<Analysis['justification']>;
export type AnalysisResponse = Analysis['response'][number];
export type AnalysisInput = Schemas['AnalysisInput'];
export type BulkAnalysis = Schemas['BulkAnalysis'];
export type BulkAnalysisResult = Schemas['BulkAnalysisResult'];
/** Triage rules (docs/triage.md#rules): an analysis (without versions) for every alert that meets the conditions. */
export type TriageRule = Schemas['TriageRule'];
export type TriageRuleList = Schemas['TriageRuleList'];
export type TriageRuleInput = Schemas['TriageRuleInput'];
export type TriageRuleMatches = Schemas['TriageRuleMatches'];
export type TriageRuleMatch = TriageRuleMatches['matches'][number];
export type RuleConditions = Schemas['RuleConditions'];
export type RuleMode = TriageRule['mode'];

// ---- the organization: who is signed in, members, invitations, API keys, the audit trail (lists in ./roles.ts, ./scopes.ts)
export type Me = Schemas['Me'];
export type Role = Schemas['Role'];
export type AssignableRole = Schemas['AssignableRole'];
export type ManagerRole = Schemas['ManagerRole'];
export type Member = Schemas['Member'];
export type MemberList = Schemas['MemberList'];
export type Invitation = Schemas['Invitation'];
export type InvitationList = Schemas['InvitationList'];
export type InvitationCreated = Schemas['InvitationCreated'];
export type InvitationLookup = Schemas['InvitationLookup'];
export type Scope = Schemas['Scope'];
export type OrgWideScope = Schemas['OrgWideScope'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyList = Schemas['ApiKeyList'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type AuditEvent = Schemas['AuditEvent'];
export type AuditEventList = Schemas['AuditEventList'];

// ---- hosts and gateways. Labels, hostnames and names are user-controlled: shown as text only.
export type Labels = Schemas['Labels'];
export type Host = Schemas['Host'];
export type HostList = Schemas['HostList'];
export type HostStatus = Host['status'];
export type Gateway = Schemas['Gateway'];
export type GatewayList = Schemas['GatewayList'];
export type GatewayStatus = Gateway['status'];
export type RegistrationToken = Schemas['RegistrationToken'];
export type RegistrationTokenList = Schemas['RegistrationTokenList'];
export type RegistrationTokenStatus = RegistrationToken['status'];
export type RegistrationTokenCreated = Schemas['RegistrationTokenCreated'];
export type EnrollmentToken = Schemas['EnrollmentToken'];
export type EnrollmentTokenList = Schemas['EnrollmentTokenList'];
export type EnrollmentTokenStatus = EnrollmentToken['status'];
export type EnrollmentTokenCreated = Schemas['EnrollmentTokenCreated'];

// ---- MCP auditing. Server names, tool names, descriptions, notes and hostnames are user-controlled:
// shown as text only.
export type McpServer = Schemas['McpServer'];
export type McpServerList = Schemas['McpServerList'];
export type McpServerDetail = Schemas['McpServerDetail'];
/** Where a server is configured: a host (or a reported hostname), a client and its config file. */
export type McpPlacement = McpServerDetail['hosts'][number];
export type McpIssue = Schemas['McpIssue'];
export type McpIssueCode = Schemas['McpIssueCode'];
export type McpTransport = McpServer['transport'];
export type McpRegistryEntry = Schemas['McpRegistryEntry'];
export type McpRegistryList = Schemas['McpRegistryList'];
export type McpRegistryEntries = Schemas['McpRegistryEntries'];
export type McpDecision = McpRegistryEntry['decision'];
/** A server's registry decision, or the list's filter by it. */
export type McpDecisionFilter = McpServer['registry']['decision'];
export type McpControlLevel = Schemas['McpControlLevel'];
export type McpControlLevelName = McpControlLevel['level'];
export type McpUsageEvent = Schemas['McpUsageEvent'];
export type McpUsageList = Schemas['McpUsageList'];

/**
 * A server's issues in the forms the app counts (web/src/components/mcp/logic.ts): a list of issues (a server, its
 * placements), counts by code (an MCP scan) or counts by severity.
 */
export type McpIssues = McpIssue[] | Partial<SeverityCounts> | Partial<Record<string, number>>;
