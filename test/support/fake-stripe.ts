// A local stand-in for the Stripe endpoints our code calls, on 127.0.0.1 (port 0): the official
// `stripe` library is pointed at it (STRIPE_API_URL). It creates Checkout Sessions as Stripe does
// (form-encoded request, Bearer secret key, a session object back), serves a minimal hosted payment
// page (GET /pay/<session>) whose Pay button completes the session, answers GET
// /v1/checkout/sessions/<id> with the session as it stands (or Stripe's 404 resource_missing), and
// builds webhook events signed with the endpoint secret by the library's own test-header helper.
// A genuine event moves the session's state as Stripe does before it sends one; a forged one
// (edited payload, or another signing secret) changes nothing at "Stripe".
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

interface FakeSession {
  id: string;
  amountMinor: number;
  currency: string;
  metadata: Record<string, string>;
  clientReferenceId: string | null;
  successUrl: string;
  cancelUrl: string;
  paymentIntent: string;
  status: "open" | "complete" | "expired";
  paymentStatus: "paid" | "unpaid";
  created: number;
  /** The raw form the library sent (empty for sessions made with `createSession`). */
  form: URLSearchParams;
}

export interface SignedEvent {
  id: string;
  payload: string;
  signature: string;
}

export interface FakeStripe {
  url: string;
  sessions: Map<string, FakeSession>;
  /** Answer the next session creations or retrievals with a 500 Stripe error (the provider is down). */
  failNext: number;
  /** GET /v1/checkout/sessions/<id> requests received, by session id. */
  retrievals: string[];
  /** A session made at Stripe by something other than leadcheck (another integration, or someone
   *  with write access to the Stripe account), naming whatever account it likes. */
  createSession(over: {
    amountMinor: number;
    currency: string;
    metadata?: Record<string, string>;
    clientReferenceId?: string | null;
  }): FakeSession;
  /**
   * A checkout.session.* event for the session, signed with `secret` (default: the endpoint's).
   * Genuine (no `secret`, no `edit`): the session first moves as Stripe's would (completed: complete
   * with `paymentStatus`, default paid; async_payment_succeeded: paid; expired: expired).
   * `edit` changes the payload's session object after that, as a forger holding the secret would.
   */
  event(
    sessionId: string,
    options?: {
      id?: string;
      type?: string;
      paymentStatus?: "paid" | "unpaid";
      secret?: string;
      edit?: (session: Record<string, unknown>) => Record<string, unknown>;
    },
  ): SignedEvent;
  /** A signed event carrying any session object, e.g. one for a session Stripe never had. */
  signedEvent(type: string, object: Record<string, unknown>): SignedEvent;
  close(): Promise<void>;
}

export async function startFakeStripe(options: {
  secretKey: string;
  webhookSecret: string;
  /** Where the hosted page's Pay button delivers checkout.session.completed (the API's webhook). */
  webhookUrl?: () => string;
}): Promise<FakeStripe> {
  const signer = new Stripe("sk_test_signer_only");
  const sessions = new Map<string, FakeSession>();
  let counter = 0;
  let eventCounter = 0;

  function sign(type: string, object: unknown, id: string, secret: string): SignedEvent {
    const payload = JSON.stringify({
      id,
      object: "event",
      api_version: "2025-01-01",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    });
    return { id, payload, signature: signer.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  function newSession(
    fields: Omit<FakeSession, "id" | "paymentIntent" | "status" | "paymentStatus" | "created">,
  ) {
    counter += 1;
    const session: FakeSession = {
      ...fields,
      id: `cs_test_fake${counter}`,
      paymentIntent: `pi_test_fake${counter}`,
      status: "open",
      paymentStatus: "unpaid",
      created: Math.floor(Date.now() / 1000),
    };
    sessions.set(session.id, session);
    return session;
  }

  const fake: FakeStripe = {
    url: "",
    sessions,
    retrievals: [],
    failNext: 0,
    createSession(over) {
      return newSession({
        amountMinor: over.amountMinor,
        currency: over.currency,
        metadata: over.metadata ?? {},
        clientReferenceId: over.clientReferenceId ?? null,
        successUrl: "https://elsewhere.example/success",
        cancelUrl: "https://elsewhere.example/cancel",
        form: new URLSearchParams(),
      });
    },
    event(sessionId, eventOptions = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no fake session ${sessionId}`);
      eventCounter += 1;
      const id = eventOptions.id ?? `evt_fake_${eventCounter}`;
      const type = eventOptions.type ?? "checkout.session.completed";
      const genuine = !eventOptions.secret && !eventOptions.edit;
      if (genuine) advance(session, type, eventOptions.paymentStatus ?? "paid");
      // A forger without write access cannot move the session: the payload only says it moved.
      const stated = genuine
        ? session
        : { ...session, ...stateAfter(session, type, eventOptions.paymentStatus ?? "paid") };
      const object = sessionObject(stated, fake.url);
      return sign(
        type,
        eventOptions.edit ? eventOptions.edit(object) : object,
        id,
        eventOptions.secret ?? options.webhookSecret,
      );
    },
    signedEvent(type, object) {
      eventCounter += 1;
      return sign(type, object, `evt_fake_${eventCounter}`, options.webhookSecret);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
        return json(res, 401, {
          error: { type: "invalid_request_error", message: "Invalid API Key provided" },
        });
      }
      if (fake.failNext > 0) {
        fake.failNext -= 1;
        return json(res, 500, { error: { type: "api_error", message: "Fake Stripe is down" } });
      }
      const form = new URLSearchParams(body);
      const metadata: Record<string, string> = {};
      for (const [key, value] of form) {
        const m = /^metadata\[(.+)\]$/.exec(key);
        if (m?.[1]) metadata[m[1]] = value;
      }
      const session = newSession({
        amountMinor: Number(form.get("line_items[0][price_data][unit_amount]")),
        currency: form.get("line_items[0][price_data][currency]") ?? "",
        metadata,
        clientReferenceId: form.get("client_reference_id"),
        successUrl: form.get("success_url") ?? "",
        cancelUrl: form.get("cancel_url") ?? "",
        form,
      });
      return json(res, 200, sessionObject(session, fake.url));
    }
    const retrieve = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && retrieve?.[1]) {
      if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
        return json(res, 401, {
          error: { type: "invalid_request_error", message: "Invalid API Key provided" },
        });
      }
      if (fake.failNext > 0) {
        fake.failNext -= 1;
        return json(res, 500, { error: { type: "api_error", message: "Fake Stripe is down" } });
      }
      const id = decodeURIComponent(retrieve[1]);
      fake.retrievals.push(id);
      const found = sessions.get(id);
      if (!found) {
        return json(res, 404, {
          error: {
            code: "resource_missing",
            doc_url: "https://stripe.com/docs/error-codes/resource-missing",
            message: `No such checkout.session: '${id}'`,
            param: "session",
            type: "invalid_request_error",
          },
        });
      }
      return json(res, 200, sessionObject(found, fake.url));
    }
    const pay = /^\/pay\/([\w]+)$/.exec(url.pathname);
    const session = pay?.[1] ? sessions.get(pay[1]) : undefined;
    if (req.method === "GET" && session) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><title>Fake Stripe Checkout</title><main><h1>Fake Stripe Checkout</h1>` +
          `<p>Pay ${(session.amountMinor / 100).toFixed(2)} ${session.currency.toUpperCase()}</p>` +
          `<form method="post"><button type="submit">Pay</button></form></main></html>`,
      );
    }
    if (req.method === "POST" && session && options.webhookUrl) {
      // Completing the payment: Stripe sends the signed event, then redirects the buyer back.
      const event = fake.event(session.id); // completes the session, paid
      const delivered = await fetch(options.webhookUrl(), {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.signature },
        body: event.payload,
      });
      await delivered.arrayBuffer();
      res.writeHead(303, { location: session.successUrl.replace("{CHECKOUT_SESSION_ID}", session.id) });
      return res.end();
    }
    json(res, 404, {
      error: {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${req.method}: ${url.pathname})`,
      },
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

type SessionState = Pick<FakeSession, "status" | "paymentStatus">;

function stateAfter(session: FakeSession, type: string, paymentStatus: "paid" | "unpaid"): SessionState {
  if (type === "checkout.session.completed") return { status: "complete", paymentStatus };
  if (type === "checkout.session.async_payment_succeeded")
    return { status: "complete", paymentStatus: "paid" };
  if (type === "checkout.session.expired") return { status: "expired", paymentStatus: "unpaid" };
  return { status: session.status, paymentStatus: session.paymentStatus };
}

function advance(session: FakeSession, type: string, paymentStatus: "paid" | "unpaid"): void {
  Object.assign(session, stateAfter(session, type, paymentStatus));
}

/** A Checkout Session object with the fields Stripe returns that our code or the library reads. */
function sessionObject(session: FakeSession, base: string) {
  return {
    id: session.id,
    object: "checkout.session",
    mode: "payment",
    livemode: false,
    created: session.created,
    expires_at: session.created + 24 * 3600,
    status: session.status,
    payment_status: session.paymentStatus,
    amount_subtotal: session.amountMinor,
    amount_total: session.amountMinor,
    currency: session.currency,
    customer: null,
    client_reference_id: session.clientReferenceId,
    metadata: session.metadata,
    payment_method_types: ["card"],
    payment_intent: session.status === "complete" ? session.paymentIntent : null,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    url: session.status === "open" ? `${base}/pay/${session.id}` : null,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": "req_fake" });
  res.end(JSON.stringify(body));
}
