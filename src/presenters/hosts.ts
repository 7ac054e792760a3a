// Hosts and registration tokens on the wire: the contract's fields first, in its order, then the
// additive ones. Storage documents never leave through anything else.
import { fromPairs } from '../domain/hosts/labels';
import { hostStatus, registrationTokenStatus, type FleetWindows } from '../domain/hosts/status';
import type { HostDoc, RegistrationTokenDoc } from '../storage/documents/fleet';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentRegistrationToken(t: RegistrationTokenDoc, used: number, now = new Date()) {
  return {
    id: t.id,
    name: t.name,
    usesLeft: Math.max(0, t.uses - used),
    labels: fromPairs(t.labels),
    status: registrationTokenStatus(t, used, now),
    createdBy: t.createdBy,
    createdAt: t.createdAt.toISOString(),
    expiresAt: t.expiresAt.toISOString(),
    // additive
    uses: t.uses,
    revokedAt: iso(t.revokedAt),
  };
}

/** gatewayId only when connectivity is gateway. */
export function presentHost(h: HostDoc, w: FleetWindows, now = new Date()) {
  return {
    id: h._id,
    hostname: h.hostname,
    status: hostStatus(h, w, now),
    lastHeartbeatAt: h.lastHeartbeatAt.toISOString(),
    labels: fromPairs(h.labels),
    connectivity: h.connectivity,
    ...(h.connectivity === 'gateway' && h.gatewayId ? { gatewayId: h.gatewayId } : {}),
    // additive
    os: h.os,
    arch: h.arch,
    agentVersion: h.agentVersion,
    registeredAt: h.registeredAt.toISOString(),
  };
}
