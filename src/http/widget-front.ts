// The widget's check answered before Fastify (ADR 0056): POST /v1/widget/check-email is a page's
// traffic, and Fastify's per-request machinery cost more than the check itself. The front answers
// only the plain case, and each step it takes is the app's own rule, through the app's own code:
//   - a cached, settled, unexpired publishable key, used from an address it allows, named by a
//     plain `?key=` (no X-API-Key), from an Origin or Referer the key allows;
//   - a JSON body (application/json, Content-Length within the body limit, no transfer coding)
//     that parses to an object whose email and captchaToken pass the body schema and the
//     request guard's control-character rule;
//   - while the app is neither closing nor draining.
// Anything else goes to the app: unread (the request as it came), or, once the body has been read,
// replayed through `app.inject` with the same method, URL, headers, body and client address, so
// every refusal keeps the app's answer, counting and log line. The check's own refusals (limits,
// CAPTCHA) and failures leave through the app's error mapping and body.
import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from "node:http";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { originAllowed, requestOrigin } from "../keys/key-policy.js";
import type { KeysService } from "../keys/keys.service.js";
import type { Clock } from "../lib/clock.js";
import { findUnsafeText } from "../lib/safe-text.js";
import type { RequestObserver } from "../metrics/http-metrics.js";
import { CheckEmailBody } from "../widget/widget.schemas.js";
import type { WidgetAnswer, WidgetCaller, WidgetService } from "../widget/widget.service.js";
import { isUsablePublishableKey } from "./auth.js";
import { answerForFailure, errorBodyOf } from "./errors.js";

const PATH = "/v1/widget/check-email";
/** The only query the front reads: one key of the shape keys have (KeyQuery allows 100 characters). */
const PLAIN_QUERY = /^\?key=([A-Za-z0-9_]{1,100})$/;
/** Fastify's JSON parser takes application/json (with parameters); +json types it refuses. */
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const JSON_HEADERS = "application/json; charset=utf-8";
/** Headers of a replayed answer that belong to its own connection, not to this one. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "date"]);

export interface WidgetFrontDeps {
  widget: WidgetService;
  keys: Pick<KeysService, "authenticateNow" | "beginAuthenticate">;
  clock: Clock;
  maxBodyBytes: number;
  /** The app's request id for a request (its X-Request-Id when well formed). */
  requestIdOf: (req: IncomingMessage) => string;
  /** True once the app closes or the process drains: the app answers then (503, Connection: close). */
  isClosing: () => boolean;
  observe: RequestObserver | undefined;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The app, for a request whose body the front has read. */
  replay: (options: InjectOptions) => Promise<LightMyRequestResponse>;
}

/** Takes the request (true) or leaves it, untouched, to the app (false); may still hand it to `app`. */
export type WidgetFront = (req: IncomingMessage, res: ServerResponse, app: RequestListener) => boolean;

interface PlainBody {
  email: string;
  captchaToken: string | undefined;
}

export function widgetFront(deps: WidgetFrontDeps): WidgetFront {
  return (req, res, app) => {
    const url = req.url;
    if (req.method !== "POST" || url === undefined || !url.startsWith(PATH)) return false;
    const query = PLAIN_QUERY.exec(url.slice(PATH.length));
    const { headers } = req;
    const length = Number(headers["content-length"]);
    const contentType = headers["content-type"];
    if (
      query === null ||
      headers["x-api-key"] !== undefined ||
      headers["transfer-encoding"] !== undefined ||
      !(length > 0 && length <= deps.maxBodyBytes) ||
      contentType === undefined ||
      !JSON_TYPE.test(contentType) ||
      deps.isClosing()
    )
      return false;
    const origin = requestOrigin(headers.origin, headers.referer);
    if (origin === null) return false;
    serve(deps, req, res, app, query[1]!, origin, length).catch((error: unknown) => {
      deps.log.error({ err: error }, "widget front failed");
      if (!res.headersSent) res.destroy();
    });
    return true;
  };
}

async function serve(
  deps: WidgetFrontDeps,
  req: IncomingMessage,
  res: ServerResponse,
  app: RequestListener,
  key: string,
  origin: string,
  length: number,
): Promise<void> {
  const startedMs = performance.now();
  const ip = req.socket.remoteAddress ?? "";
  const caller = await usableCaller(deps, key, ip, origin);
  if (caller === undefined) return app(req, res);
  const text = await bodyOf(req, length);
  if (text === undefined) return void res.destroy();
  const body = plainBody(text);
  if (body === undefined) return replay(deps, req, res, text, ip);

  const id = deps.requestIdOf(req);
  try {
    // Written out, not spread: a spread's copy takes its hidden class from V8's shared root (ADR 0057).
    const verdict = await deps.widget.check({
      accountId: caller.accountId,
      keyId: caller.keyId,
      policy: caller.policy,
      origin,
      ip,
      email: body.email,
      captchaToken: body.captchaToken,
    });
    // WidgetAnswer's fields in its order, and no other (additionalProperties: false).
    answer(deps, res, id, origin, startedMs, 200, answerJson(verdict), undefined);
  } catch (error) {
    const appError = answerForFailure(error, deps.log, id);
    answer(
      deps,
      res,
      id,
      origin,
      startedMs,
      appError.status,
      JSON.stringify(errorBodyOf(appError)),
      appError.headers,
    );
  }
}

/**
 * WidgetAnswer's JSON: its fields in its order, and no other (additionalProperties: false), as
 * JSON.stringify would write them. Every value but didYouMean is ours and needs no escaping (a
 * status and a reason from closed sets, booleans or null, a base64url token); didYouMean, which
 * holds a visitor's local part, goes through JSON.stringify.
 */
function answerJson(verdict: WidgetAnswer): string {
  const { didYouMean } = verdict;
  return (
    `{"status":"${verdict.status}","reason":"${verdict.reason}",` +
    `"didYouMean":${didYouMean === null ? "null" : JSON.stringify(didYouMean)},` +
    `"disposable":${verdict.disposable},"role":${verdict.role},"free":${verdict.free},` +
    `"token":"${verdict.token}"}`
  );
}

/**
 * Writes the front's answer: one writeHead and one end, so the head and the body leave in one
 * write. A module function, not a closure per request: tsx names each closure it makes with
 * Object.defineProperty (ADR 0057).
 */
function answer(
  deps: WidgetFrontDeps,
  res: ServerResponse,
  id: string,
  origin: string,
  startedMs: number,
  status: number,
  payload: string,
  extra: Record<string, string> | undefined,
): void {
  const head = ["x-request-id", id, "access-control-allow-origin", origin, "vary", "Origin"];
  if (extra !== undefined) for (const name in extra) head.push(name, extra[name]!);
  head.push("content-type", JSON_HEADERS, "content-length", String(Buffer.byteLength(payload)));
  res.writeHead(status, head);
  res.end(payload);
  deps.observe?.("POST", PATH, status, (performance.now() - startedMs) / 1000);
}

/** The key's caller when the front may answer for it; undefined leaves the request to the app. */
async function usableCaller(
  deps: WidgetFrontDeps,
  key: string,
  ip: string,
  origin: string,
): Promise<WidgetCaller | undefined> {
  try {
    const identity =
      deps.keys.authenticateNow(key) ?? (await (await deps.keys.beginAuthenticate(key))?.settle());
    if (identity === undefined) return undefined;
    const { policy } = identity;
    if (!isUsablePublishableKey(policy, ip, deps.clock.now())) return undefined;
    return originAllowed(policy.allowedOrigins, origin) ? identity : undefined;
  } catch {
    // The app looks again and answers (a database that is down is its 503).
    return undefined;
  }
}

/** The body as text, or undefined when the client went away before sending it all. */
function bodyOf(req: IncomingMessage, length: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Resolved once: 'close' follows every 'end', and resolving a settled promise is a runtime
    // call. (No named helper for it: tsx names each closure it makes, ADR 0057.)
    let settled = false;
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on("end", () => {
      settled = true;
      resolve(size === length ? Buffer.concat(chunks, size).toString("utf8") : undefined);
    });
    // A client that goes away mid-body: 'error' (aborted), then 'close'.
    req.on("error", () => {
      if (!settled) resolve(undefined);
      settled = true;
    });
    req.on("close", () => {
      if (!settled) resolve(undefined);
      settled = true;
    });
  });
}

/**
 * The body when it is plainly valid: an object whose email (1-320 characters) and captchaToken
 * (absent, or a string of at most 4096) pass the schema and hold no unsafe text. Anything else,
 * including a body secure-json-parse would refuse (`__proto__`, `constructor`), is the app's.
 */
function plainBody(text: string): PlainBody | undefined {
  if (text.includes("__proto__") || text.includes("constructor")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { email, captchaToken } = value as Record<string, unknown>;
  if (typeof email !== "string" || email.length < 1 || email.length > 320) return undefined;
  if (captchaToken !== undefined && (typeof captchaToken !== "string" || captchaToken.length > 4096))
    return undefined;
  if (findUnsafeText(value, CheckEmailBody, 1).length > 0) return undefined;
  return { email, captchaToken };
}

/** The app's answer to the same request, written to this connection. */
async function replay(
  deps: WidgetFrontDeps,
  req: IncomingMessage,
  res: ServerResponse,
  payload: string,
  ip: string,
): Promise<void> {
  const reply = await deps.replay({
    method: "POST",
    url: req.url ?? PATH,
    headers: req.headers,
    payload,
    remoteAddress: ip,
  });
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers))
    if (value !== undefined && !HOP_HEADERS.has(name))
      headers[name] = Array.isArray(value) ? value : String(value);
  res.writeHead(reply.statusCode, headers);
  res.end(reply.rawPayload);
}

/**
 * Fastify's serverFactory: an HTTP server whose requests meet the front first. Fastify sets a
 * server's timeouts only when it creates the server itself: the same settings here.
 */
export function frontedServer(
  front: WidgetFront,
  app: RequestListener,
  options: {
    http?: ServerOptions | null;
    keepAliveTimeout?: number;
    requestTimeout?: number;
    connectionTimeout?: number;
    maxRequestsPerSocket?: number;
  },
): Server {
  const server = createServer(options.http ?? {}, (req, res) => {
    if (!front(req, res, app)) app(req, res);
  });
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
  if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}
