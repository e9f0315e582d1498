// How a call to Google or HubSpot failed, in the terms the sync acts on: `auth` sets the
// connection to needs_reauth, `not_found` ends the sync (a deleted sheet or list), `unavailable`
// is retried later from the stored cursor (429s and 5xx that outlasted the backoff), `refused` is
// a request the service will not take as it is.
export type RemoteFailureKind = "auth" | "not_found" | "unavailable" | "refused";

export class RemoteError extends Error {
  override name = "RemoteError";
  constructor(
    readonly kind: RemoteFailureKind,
    message: string,
    /** HTTP status of the last answer; null when none came. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export class RateGate {
  private readonly sent: number[] = [];
  /** At most `limit` calls start in any `windowMs` (one client's share of a per-user limit). */
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly wait: (ms: number) => Promise<void>,
  ) {}

  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.sent.length > 0 && now - this.sent[0]! >= this.windowMs) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(now);
        return;
      }
      await this.wait(this.sent[0]! + this.windowMs - now);
    }
  }
}
