// The organization a request acts in. Access itself is decided by the matrix (matrix.ts).
import { ApiError } from '../../domain/errors';
import type { AppState } from '../deps';
import type { Principal } from './principal';

export function principalOf(ctx: { state: AppState }): Principal & { orgId: string } {
  const p = ctx.state.principal;
  if (!p || !p.orgId) throw new ApiError(403, 'insufficient_scope', 'requires organization membership');
  return p as Principal & { orgId: string };
}
