// Stored documents of webhooks and their deliveries.

/**
 * A webhook: its signing secret encrypted at rest (storage/secrets.ts), since signing needs it back.
 * Deleting one sets deletedAt (the delivery log stays readable by id until then; lists skip it).
 * A chat webhook (format slack or teams) has no signing secret; its URL is a credential, sealed in `sealedUrl`, and
 * `url` holds only its masked form (`https://host/…`).
 */
export interface WebhookDoc {
  _id: string; // whk_...
  orgId: string;
  /** The destination (json), or the masked form of a chat webhook's sealed destination. */
  url: string;
  /** How deliveries are shaped (domain/webhooks/chat.ts); absent on webhooks made before formats: json. */
  format?: 'json' | 'slack' | 'teams';
  /** A chat webhook's destination URL, sealed like a secret. */
  sealedUrl?: EncryptedSecret;
  events: string[];
  /** Alert events only: the least severity an alert must have to be sent (absent: every alert). */
  minSeverity?: 'critical' | 'high' | 'medium' | 'low' | null;
  /** Alert events only: the projects (ids) whose alerts are sent (absent: every project). */
  projects?: string[] | null;
  /** The signing secret of a json webhook, sealed; null for a chat webhook (deliveries unsigned). */
  secret: EncryptedSecret | null;
  createdBy: string | null;
  createdAt: Date;
  deletedAt: Date | null;
}

/** AES-256-GCM ciphertext of a secret, with the id of the key that sealed it (storage/secrets.ts). */
export interface EncryptedSecret {
  v: 1;
  kid: string;
  iv: string;
  tag: string;
  data: string;
}

/**
 * One delivery of one event to one webhook (_id dlv_..., the X-Svc-Delivery header, the same on every retry) and its
 * attempts so far, newest last.
 */
export interface WebhookDeliveryDoc {
  _id: string;
  orgId: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Array<{ n: number; at: Date; durationMs: number; statusCode: number | null; error: string | null }>;
  /** The raw JSON body, built once when the event's deliveries are recorded: every attempt sends these bytes. */
  body: string;
  /** Why a failed delivery stopped (its webhook was deleted, or the retry window ended); null otherwise. */
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}
