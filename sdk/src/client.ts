// The leadcheck API client: `new LeadcheckClient({ baseUrl, apiKey })`. Checks sit on the client,
// resources hang off it (client.leads, client.batches, ...), and waitForBatch / waitForJob poll
// until the server reports a final state.
import type {
  Batch,
  EmailCheckInput,
  EmailCheckResult,
  HealthStatus,
  Me,
  NetworkStatus,
  ReadinessStatus,
  ValidationJob,
  WebsiteCheckInput,
  WebsiteCheckResult,
  WidgetAnswer,
  WidgetConfirmation,
  WidgetStats,
  WidgetStatsQuery,
} from "./api-types.js";
import { LeadcheckError } from "./errors.js";
import { BatchesApi, ConnectionsApi, CreditsApi, KeysApi, LeadsApi, WebhooksApi } from "./resources.js";
import { AuditApi, PrivacyApi, TeamApi } from "./team-resources.js";
import { type CallOptions, type ClientOptions, segment, Transport } from "./transport.js";

export interface WaitOptions<T> {
  /** Between polls. Default 1000 ms (each poll counts against the rate limits). */
  intervalMs?: number;
  /** Give up (LeadcheckError WAIT_TIMEOUT) after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** Called with every polled state, the final one included. */
  onProgress?: (state: T) => void;
  signal?: AbortSignal;
}

const BATCH_FINAL = new Set(["completed", "failed"]);
const JOB_FINAL = new Set(["completed", "failed", "timeout"]);

export class LeadcheckClient {
  readonly leads: LeadsApi;
  readonly batches: BatchesApi;
  readonly credits: CreditsApi;
  readonly keys: KeysApi;
  readonly webhooks: WebhooksApi;
  readonly connections: ConnectionsApi;
  readonly team: TeamApi;
  readonly audit: AuditApi;
  readonly privacy: PrivacyApi;
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.leads = new LeadsApi(this.http);
    this.batches = new BatchesApi(this.http);
    this.credits = new CreditsApi(this.http);
    this.keys = new KeysApi(this.http);
    this.webhooks = new WebhooksApi(this.http);
    this.connections = new ConnectionsApi(this.http);
    this.team = new TeamApi(this.http);
    this.audit = new AuditApi(this.http);
    this.privacy = new PrivacyApi(this.http);
  }

  /** What /widget.js asks in a page: a publishable key, from one of its allowed origins (a browser
   *  sends the Origin; elsewhere the answer is 403 ORIGIN_NOT_ALLOWED). */
  widgetCheckEmail(publishableKey: string, email: string, call?: CallOptions): Promise<WidgetAnswer> {
    const spec = {
      method: "POST",
      path: "/v1/widget/check-email",
      auth: "none",
      query: { key: publishableKey },
    } as const;
    return this.http.json({ ...spec, body: { email } }, call);
  }

  /** The form's backend, with a secret key: the verdict the visitor saw, by its token. */
  widgetConfirm(token: string, email: string, call?: CallOptions): Promise<WidgetConfirmation> {
    return this.http.json({ method: "POST", path: "/v1/widget/confirm", body: { token, email } }, call);
  }

  /** Widget checks per UTC day, flagged answers by reason and refusals by cause, for one
   *  publishable key (`keyId`) or every key of the data space. */
  widgetStats(query: WidgetStatsQuery = {}, call?: CallOptions): Promise<WidgetStats> {
    return this.http.json({ method: "GET", path: "/v1/widget/stats", query }, call);
  }

  /** Who the credential is here: account, role, permissions, and a person's other accounts. */
  me(call?: CallOptions): Promise<Me> {
    return this.http.json({ method: "GET", path: "/v1/me" }, call);
  }

  /** GET /health: no credentials needed. */
  health(call?: CallOptions): Promise<HealthStatus> {
    return this.http.json({ method: "GET", path: "/health", auth: "none" }, call);
  }

  /** GET /readiness: database and queue; a 503 (not ready) is thrown as LeadcheckError. */
  readiness(call?: CallOptions): Promise<ReadinessStatus> {
    return this.http.json({ method: "GET", path: "/readiness", auth: "none" }, call);
  }

  /** GET /v1/status: whether the server can see the world (DNS, SMTP egress), and since when.
   *  While `dns` is down, checks are refused with 503 SERVICE_UNAVAILABLE and nothing is charged. */
  status(call?: CallOptions): Promise<NetworkStatus> {
    return this.http.json({ method: "GET", path: "/v1/status" }, call);
  }

  /** Checks a website (synchronous on the server, up to about 30 s). */
  checkWebsite(input: string | WebsiteCheckInput, call?: CallOptions): Promise<WebsiteCheckResult> {
    const body = typeof input === "string" ? { website: input } : input;
    return this.http.json({ method: "POST", path: "/v1/check-website", body }, call);
  }

  /**
   * Verifies an email by SMTP. The server waits up to `timeout` seconds; a result with status
   * "processing" carries a jobId to follow with waitForJob.
   */
  checkEmail(input: string | EmailCheckInput, call?: CallOptions): Promise<EmailCheckResult> {
    const body = typeof input === "string" ? { email: input } : input;
    return this.http.json({ method: "POST", path: "/v1/check-email", body }, call);
  }

  /** A validation job; 404 (LeadcheckError NOT_FOUND) once it expired (24 hours). */
  getValidationJob(jobId: string, call?: CallOptions): Promise<ValidationJob> {
    return this.http.json({ method: "GET", path: `/v1/validation-jobs/${segment(jobId)}` }, call);
  }

  /** Polls a batch until it is completed or failed and returns that final state. */
  waitForBatch(batchId: string, options: WaitOptions<Batch> = {}): Promise<Batch> {
    return this.poll(
      `batch ${batchId}`,
      (call) => this.batches.get(batchId, call),
      (batch) => BATCH_FINAL.has(batch.status),
      options,
    );
  }

  /** Polls a validation job until it is completed, failed or timed out and returns that state. */
  waitForJob(jobId: string, options: WaitOptions<ValidationJob> = {}): Promise<ValidationJob> {
    return this.poll(
      `job ${jobId}`,
      (call) => this.getValidationJob(jobId, call),
      (job) => JOB_FINAL.has(job.status),
      options,
    );
  }

  private async poll<T>(
    what: string,
    fetchState: (call: CallOptions) => Promise<T>,
    isFinal: (state: T) => boolean,
    options: WaitOptions<T>,
  ): Promise<T> {
    const intervalMs = options.intervalMs ?? 1000;
    const timeoutMs = options.timeoutMs ?? 10 * 60_000;
    const call = options.signal ? { signal: options.signal } : {};
    const deadline = this.http.now() + timeoutMs;
    for (;;) {
      const state = await fetchState(call);
      options.onProgress?.(state);
      if (isFinal(state)) return state;
      if (this.http.now() + intervalMs > deadline) {
        throw new LeadcheckError({
          status: 0,
          errorCode: "WAIT_TIMEOUT",
          message: `${what} did not finish within ${timeoutMs} ms`,
          details: { lastState: state },
        });
      }
      await this.http.sleep(intervalMs, options.signal);
    }
  }
}
