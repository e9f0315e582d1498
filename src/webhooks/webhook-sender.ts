// Sends webhook requests through the guarded HTTP client it is given (the wiring decides the
// guard's settings, extra CAs and the User-Agent): the SSRF guard runs on the resolved address at
// connect time on every attempt, redirects are never followed, the attempt is cut at the timeout
// and only a bounded prefix of the receiver's answer is read. Every outcome is a value. Also
// checks endpoint URLs when they are registered (the same client's guard, ahead of time).
import type { HttpClient, HttpFailure } from "../net/http-client.js";
import { signPayload } from "./signature.js";

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface WebhookSenderOptions {
  /** The guarded client every request and URL check goes through (built in src/main.ts). */
  client: HttpClient;
  timeoutMs: number;
  responseBodyMaxBytes: number;
}

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  httpStatus: number | null;
  /** The receiver's body, at most responseBodyMaxBytes, decoded as UTF-8. */
  responseBody: string | null;
  responseTruncated: boolean;
  errorMessage: string | null;
  /** What went wrong: a network failure, or "status" for a non-2xx answer. */
  failure: HttpFailure | "status" | null;
  durationMs: number;
}

export interface SignedRequest {
  url: string;
  /** The exact bytes sent and signed. */
  body: string;
  secret: string;
  event: string;
  deliveryId: string;
}

export type UrlVerdict = { ok: true; url: string } | { ok: false; message: string };

export class WebhookSender {
  constructor(private readonly options: WebhookSenderOptions) {}

  /** One signed delivery attempt (spec "Delivery" headers). */
  sendSigned(request: SignedRequest): Promise<AttemptResult> {
    const signature = signPayload(request.secret, request.body);
    return this.post(request.url, request.body, {
      "x-webhook-signature": signature,
      "x-signature-256": signature,
      "x-webhook-event": request.event,
      "x-webhook-delivery": request.deliveryId,
    });
  }

  /** An ad-hoc callback (`webhookUrl`): unsigned, one attempt, no retries. */
  sendUnsigned(url: string, payload: Record<string, unknown>): Promise<AttemptResult> {
    const event: Record<string, string> =
      typeof payload.event === "string" ? { "x-webhook-event": payload.event } : {};
    return this.post(url, JSON.stringify(payload), event);
  }

  /** Refuses a URL that is malformed, not http(s), carries credentials, or resolves to a guarded address. */
  async checkUrl(raw: string): Promise<UrlVerdict> {
    const syntax = parseWebhookUrl(raw);
    if (!syntax.ok) return syntax;
    const url = new URL(syntax.url);
    const verdict = await this.options.client.checkTarget(url.hostname);
    if (verdict.ok) return syntax;
    if (verdict.kind === "blocked") return { ok: false, message: verdict.message };
    // A name that does not exist is a typo; a resolver that fails now may answer later.
    if (verdict.failure === "NXDOMAIN" || verdict.failure === "NODATA") {
      return { ok: false, message: `the host ${url.hostname} does not resolve (${verdict.failure})` };
    }
    return syntax;
  }

  private async post(rawUrl: string, body: string, extra: Record<string, string>): Promise<AttemptResult> {
    const checked = parseWebhookUrl(rawUrl);
    if (!checked.ok) return refusedUrl(checked.message);
    const url = new URL(checked.url);
    const outcome = await this.options.client.request({
      url,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        accept: "*/*",
        ...extra,
      },
      body,
      timeoutMs: this.options.timeoutMs,
      maxBodyBytes: this.options.responseBodyMaxBytes,
    });
    const durationMs = Math.round(outcome.timings.totalMs);
    if (!outcome.ok) {
      return {
        ok: false,
        httpStatus: null,
        responseBody: null,
        responseTruncated: false,
        errorMessage: outcome.message,
        failure: outcome.failure,
        durationMs,
      };
    }
    const ok = outcome.status >= 200 && outcome.status < 300;
    return {
      ok,
      httpStatus: outcome.status,
      responseBody: textOf(outcome.body),
      responseTruncated: outcome.bodyTruncated === "size",
      errorMessage: ok ? null : statusMessage(outcome.status),
      failure: ok ? null : "status",
      durationMs,
    };
  }
}

/** Syntax rules of endpoint URLs, without any lookup. */
function parseWebhookUrl(raw: string): UrlVerdict {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, message: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, message: "must be an absolute http(s) URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, message: "must use https (recommended) or http" };
  }
  if (url.username || url.password) {
    return { ok: false, message: "must not carry credentials; authenticate receivers by the signature" };
  }
  if (!url.hostname) return { ok: false, message: "must name a host" };
  url.hash = "";
  return { ok: true, url: url.toString() };
}

function refusedUrl(message: string): AttemptResult {
  return {
    ok: false,
    httpStatus: null,
    responseBody: null,
    responseTruncated: false,
    errorMessage: `invalid URL: ${message}`,
    failure: "error",
    durationMs: 0,
  };
}

function statusMessage(status: number): string {
  if (status >= 300 && status < 400) return `receiver answered ${status}; redirects are not followed`;
  return `receiver answered ${status}`;
}

// PostgreSQL text cannot hold NUL; a receiver's body is shown to users, never interpreted.
function textOf(body: Buffer): string {
  return body.toString("utf8").replaceAll("\u0000", "\uFFFD");
}
