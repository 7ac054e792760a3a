// Stored documents of the service itself: settings, counters, the audit trail and rate-limit counters.

export interface SettingDoc {
  _id: string;
  value: unknown;
}

export interface CounterDoc {
  _id: string;
  seq: number;
}

/** One audit event; _id is a time-sortable aud_ id, so newest first is _id descending. */
export interface AuditEventDoc {
  _id: string;
  orgId: string;
  type: string;
  /** A person (memberId, userId, email), or a machine credential: then those are null and one of the ids below says which. */
  actor: {
    memberId: string | null;
    userId: string | null;
    email: string | null;
    /** An API key acted (memberId: the member who created it). */
    apiKeyId?: string;
    registrationTokenId?: string;
    hostId?: string;
    enrollmentTokenId?: string;
    gatewayId?: string;
  };
  target: { kind: string; id: string; [k: string]: unknown };
  at: Date;
  requestId: string | null;
}

/** Requests of one credential in one minute: _id = `${credentialHash}:${minute}`. */
export interface RateCounterDoc {
  _id: string;
  n: number;
  expiresAt: Date;
}
