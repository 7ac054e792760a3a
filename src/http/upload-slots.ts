// The count of large uploads in flight (see scans/upload-body.ts): a large upload holds its body and then a pool
// thread's parse of it, so past UPLOADS_MAX_IN_FLIGHT one is refused 503 service_unavailable with Retry-After.
import { ApiError } from '../domain/errors';
import { envInt } from '../config';

/** Sized for a 2-core machine: a pool of 1-2 threads parsing, the rest read and waiting. */
export const DEFAULT_MAX_LARGE_UPLOADS = 4;

export const uploadsBusy = () =>
  new ApiError(503, 'service_unavailable', 'too many large uploads in flight; retry later');

/** A count of large uploads in flight, taken without waiting: a full count refuses at once. */
export class UploadSlots {
  private used = 0;
  constructor(readonly max: number = envInt('UPLOADS_MAX_IN_FLIGHT', DEFAULT_MAX_LARGE_UPLOADS)) {}

  get inUse(): number {
    return this.used;
  }

  /** Takes a slot or throws 503 service_unavailable; the function returned gives it back (once). */
  take(): () => void {
    if (this.used >= this.max) throw uploadsBusy();
    this.used++;
    let held = true;
    return () => {
      if (held) this.used--;
      held = false;
    };
  }
}
