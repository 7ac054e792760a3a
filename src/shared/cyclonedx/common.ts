// What the SBOM and the VEX of a scan share: the document's frame (serial number, metadata, this service as the
// tool, the project as the metadata component), the package components (one per inventory id) and the byte form.
// Everything is derived from the scan and its snapshot alone, in sorted order, so that the same scan gives the same
// bytes every time, on the service and in the CI client (which builds the SBOM of what it uploaded).
import { compareCodePoints, dependencyId } from '../inventory-ids';
import type { Snapshot, SnapshotMetadata } from '../types';
import { groupAndName, purlOf } from './purl';
import {
  SPEC_VERSION,
  type BomScan,
  type BomTool,
  type CdxBom,
  type CdxComponent,
  type CdxMetadata,
  type CdxProperty,
} from './types';

let crypto: typeof import('node:crypto') | undefined;
// Required on first use, not imported: the client bundle would otherwise load node:crypto on every start.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeCrypto = (): typeof import('node:crypto') => (crypto ??= require('node:crypto'));

/** Property names of this service (CycloneDX reserves `cdx:`; others use their own prefix). */
export const PROPERTY_PREFIX = 'scanner:';
const prop = (name: string, value: string): CdxProperty => ({ name: PROPERTY_PREFIX + name, value });

/** The schema caps a version at 1024 characters; a snapshot allows 2000 (the purl keeps it whole either way). */
const MAX_VERSION = 1024;

// RFC 4122's URL namespace: the names hashed below are URNs of this service's documents.
const URL_NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

/**
 * A name-based (version 5, SHA-1) UUID of the document `kind` of a scan: stable, so that the same scan always gives
 * the same bytes, yet different for the SBOM and the VEX of one scan and for every scan.
 */
export function serialNumber(scanId: string, kind: 'sbom' | 'vex'): string {
  const h = nodeCrypto()
    .createHash('sha1')
    .update(URL_NAMESPACE)
    .update(`urn:supply-chain-scanner:scan:${scanId}:${kind}`, 'utf8')
    .digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `urn:uuid:${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** bom-ref of a first-party module (v2 module path, v1 manifest): like dep_ ids, stable across the project's scans. */
export function moduleRef(projectId: string, ecosystem: string, path: string): string {
  return (
    'mod_' +
    nodeCrypto().createHash('sha256').update(`${projectId}\0${ecosystem}\0${path}`, 'utf8').digest('hex').slice(0, 24)
  );
}

export const byCodePoints = (a: string, b: string): number => compareCodePoints(a, b);

/** Plain `<` order: for refs, which are ASCII (dep_, mod_ + hex). */
export const byRef = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The snapshot's metadata fields that are strings, in a fixed order. */
function metadataProperties(m: SnapshotMetadata | undefined): CdxProperty[] {
  const out: CdxProperty[] = [];
  for (const k of ['commit', 'ref', 'runUrl', 'baseRef', 'baseCommit'] as const)
    if (typeof m?.[k] === 'string') out.push(prop(k, m[k]!));
  return out;
}

/** The project as the metadata component; its bom-ref is the project id. */
export function projectComponent(scan: BomScan, components?: CdxComponent[]): CdxComponent {
  return {
    type: 'application',
    'bom-ref': scan.projectId,
    name: scan.project,
    ...(components?.length ? { components } : {}),
  };
}

export function metadata(
  scan: BomScan,
  snapshot: Snapshot,
  tool: BomTool,
  timestamp: string,
  component: CdxComponent,
): CdxMetadata {
  return {
    timestamp,
    tools: { components: [{ type: 'application', name: tool.name, version: tool.version }] },
    component,
    properties: [
      prop('scan', scan.id),
      prop('ecosystem', snapshot.ecosystem),
      ...metadataProperties(snapshot.metadata),
    ],
  };
}

export function frame(
  scan: BomScan,
  kind: 'sbom' | 'vex',
  meta: CdxMetadata,
): Pick<CdxBom, '$schema' | 'bomFormat' | 'specVersion' | 'serialNumber' | 'version' | 'metadata'> {
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: SPEC_VERSION,
    serialNumber: serialNumber(scan.id, kind),
    version: 1,
    metadata: meta,
  };
}

/** The bytes of a document: compact JSON and a newline (one document per line when several are written together). */
export function serializeBom(bom: CdxBom): string {
  return `${JSON.stringify(bom)}\n`;
}

export interface PackageComponents {
  /** Component of every package, sorted by name, then version, then bom-ref (code-point order). */
  list: CdxComponent[];
  /** Position in `list` of each snapshot node (aligned with snapshot.nodes). */
  ofNode: Int32Array;
  /** Position in `list` of each bom-ref. */
  byRef: Map<string, number>;
}

/**
 * One library component per inventory id (`bom-ref` = the dep_ id of the package: the id findings carry as
 * packageRef), so nodes the inventory merges (names the ecosystem does not tell apart, a v1 package on two nodes)
 * are one component. Its name is the smallest of those nodes' names: a choice that depends on no order of the
 * snapshot, whose arrays a multipart upload may deliver in another grouping.
 */
export function packageComponents(snapshot: Snapshot, projectId: string): PackageComponents {
  const nodes = snapshot.nodes;
  const refs: string[] = new Array(nodes.length);
  const nameOf = new Map<string, string>();
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const ref = (refs[i] = dependencyId(projectId, snapshot.ecosystem, n.name, n.version));
    const seen = nameOf.get(ref);
    if (seen === undefined || compareCodePoints(n.name, seen) < 0) nameOf.set(ref, n.name);
  }
  // Every node of one ref has the same version: the id hashes it as it is.
  const versionOf = new Map<string, string>();
  for (let i = 0; i < nodes.length; i++) versionOf.set(refs[i], nodes[i].version);
  const order = [...nameOf.keys()].sort(
    (a, b) =>
      compareCodePoints(nameOf.get(a)!, nameOf.get(b)!) ||
      compareCodePoints(versionOf.get(a)!, versionOf.get(b)!) ||
      byRef(a, b),
  );
  const list = order.map((ref) => packageComponent(snapshot.ecosystem, ref, nameOf.get(ref)!, versionOf.get(ref)!));
  const byRefMap = new Map(order.map((ref, k) => [ref, k]));
  const ofNode = new Int32Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) ofNode[i] = byRefMap.get(refs[i])!;
  return { list, ofNode, byRef: byRefMap };
}

/** The library component of a package (see packageComponents). */
export function packageComponent(ecosystem: string, ref: string, name: string, version: string): CdxComponent {
  const purl = purlOf(ecosystem, name, version);
  const long = version.length > MAX_VERSION;
  return {
    type: 'library',
    'bom-ref': ref,
    ...groupAndName(ecosystem, name),
    ...(long ? {} : { version }),
    ...(purl ? { purl } : {}),
    ...(long ? { properties: [prop('version', version)] } : {}),
  };
}
