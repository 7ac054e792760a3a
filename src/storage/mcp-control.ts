// The organization's MCP control level: observe (default), warn or block. One document per
// organization, _id = the organization's id.
import type { ControlLevel } from '../domain/mcp/decision';
import { isDuplicateKey, type Store } from './mongo';

export interface ControlLevelState {
  level: ControlLevel;
  updatedAt: Date | null;
  updatedBy: string | null;
}

export async function getControlLevel(store: Store, orgId: string): Promise<ControlLevelState> {
  const doc = await store.c.mcpControl.findOne({ _id: orgId });
  return doc
    ? { level: doc.level, updatedAt: doc.updatedAt, updatedBy: doc.updatedBy }
    : { level: 'observe', updatedAt: null, updatedBy: null };
}

export async function setControlLevel(
  store: Store,
  orgId: string,
  level: ControlLevel,
  updatedBy: string,
  now = new Date(),
): Promise<ControlLevelState> {
  const fields = { level, updatedAt: now, updatedBy };
  try {
    await store.c.mcpControl.updateOne({ _id: orgId }, { $set: fields }, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    await store.c.mcpControl.updateOne({ _id: orgId }, { $set: fields });
  }
  return fields;
}
