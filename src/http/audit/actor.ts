import type { Principal } from '../auth/principal';
import type { AuditEventDoc } from '../../storage/documents/service';

/**
 * Who acted: the member and user of a session; for an API key (uploads, triage) the member who created it and the
 * key's id; for the machine credentials of hosts and gateways no person, and the additive field naming the
 * credential's token, host or gateway.
 */
export function actorOf(p: Principal): AuditEventDoc['actor'] {
  const nobody = { memberId: null, userId: null, email: null };
  switch (p.kind) {
    case 'session':
      return { memberId: p.member?._id ?? null, userId: p.user.id, email: p.user.email };
    case 'api_key':
      return { memberId: p.key.createdBy, userId: null, email: null, apiKeyId: p.key.id };
    case 'registration_token':
      return { ...nobody, registrationTokenId: p.token.id };
    case 'host':
      return { ...nobody, hostId: p.host._id };
    case 'enrollment_token':
      return { ...nobody, enrollmentTokenId: p.token.id };
    case 'gateway':
      return { ...nobody, gatewayId: p.gateway._id };
  }
}
