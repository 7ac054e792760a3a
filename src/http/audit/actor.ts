import type { Principal } from '../auth/principal';
import type { AuditEventDoc } from '../../storage/documents';

/** Who acted: the member and user of a session (API keys never reach audited endpoints). */
export function actorOf(p: Principal): AuditEventDoc['actor'] {
  if (p.kind === 'session') return { memberId: p.member?._id ?? null, userId: p.user.id, email: p.user.email };
  return { memberId: p.key.createdBy, userId: null, email: null };
}
