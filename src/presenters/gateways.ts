// Gateways and enrollment tokens on the wire: the contract's fields first, in its order, then the
// additive ones. networkScope is what the gateway may reach once approved; while it is pending (or expired without
// approval) it is the scope the gateway asked for, which requestedScope always holds.
import { enrollmentTokenStatus, gatewayStatus, type FleetWindows } from '../domain/hosts/status';
import type { EnrollmentTokenDoc, GatewayDoc } from '../storage/documents/fleet';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentEnrollmentToken(t: EnrollmentTokenDoc, now = new Date()) {
  return {
    id: t.id,
    name: t.name,
    status: enrollmentTokenStatus(t, now),
    createdBy: t.createdBy,
    createdAt: t.createdAt.toISOString(),
    expiresAt: t.expiresAt.toISOString(),
    // additive
    usedAt: iso(t.usedAt),
    gatewayId: t.gatewayId,
    revokedAt: iso(t.revokedAt),
  };
}

export function presentGateway(g: GatewayDoc, w: FleetWindows, now = new Date()) {
  return {
    id: g._id,
    name: g.name,
    status: gatewayStatus(g, w, now),
    networkScope: g.state === 'active' ? g.networkScope : g.requestedScope,
    version: g.version,
    lastSeenAt: g.lastSeenAt.toISOString(),
    // additive
    requestedScope: g.requestedScope,
    enrolledAt: g.enrolledAt.toISOString(),
    approvedAt: iso(g.approvedAt),
  };
}
