// The custom search attributes a namespace must have before scan workflows start (SA in scan-workflow-contract.ts uses them).
// The local dev server gets them as --search-attribute flags; a real cluster gets them from the worker at start
// or from `scanner temporal setup`, through the operator service.
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export const SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'Int'> = {
  ScanId: 'Keyword',
  OrgId: 'Keyword',
  ProjectId: 'Keyword',
  ProjectSlug: 'Keyword',
  Ecosystem: 'Keyword',
  NodeCount: 'Int',
  Stage: 'Keyword',
};

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
const TYPES = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
} as const;

/** `--search-attribute Name=Type` pairs for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

const ALREADY_EXISTS = 6; // gRPC status code

/**
 * Adds the attributes the namespace lacks; returns their names. Idempotent: concurrent callers (several workers
 * starting together) may race, and the loser's ALREADY_EXISTS is ignored. An attribute registered with another
 * type is an operator's decision we cannot undo, so it is reported, not changed.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have: Record<string, number> = { ...(existing.systemAttributes ?? {}), ...(existing.customAttributes ?? {}) };
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  const conflicts: string[] = [];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    if (!(name in have)) missing[name] = TYPES[type];
    else if (have[name] !== TYPES[type]) conflicts.push(`${name} is registered with another type (want ${type})`);
  }
  if (conflicts.length) throw new Error(`search attributes in namespace ${namespace}: ${conflicts.join('; ')}`);
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    const e = err as { code?: number; message?: string };
    if (e.code !== ALREADY_EXISTS && !/already exists/i.test(e.message ?? '')) throw err;
  }
  return names;
}
