// A local stand-in for the Stripe endpoints our code calls, on 127.0.0.1 (port 0): the official
// `stripe` library is pointed at it (STRIPE_API_URL). It creates Checkout Sessions as Stripe does
// (form-encoded request, Bearer secret key, a session object back), serves a minimal hosted payment
// page (GET /pay/<session>) whose Pay button completes the session, and builds webhook events
// signed with the endpoint secret by the library's own test-header helper.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export interface FakeSession {
  id: string;
  amountMinor: number;
  currency: string;
  metadata: Record<string, string>;
  clientReferenceId: string | null;
  successUrl: string;
  cancelUrl: string;
  paymentIntent: string;
  /** The raw form the library sent. */
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
  /** Answer the next session creations with a 500 Stripe error (the provider is down). */
  failNext: number;
  /** A checkout.session.* event for the session, signed with `secret` (default: the endpoint's). */
  event(
    sessionId: string,
    options?: { id?: string; type?: string; paymentStatus?: "paid" | "unpaid"; secret?: string },
  ): SignedEvent;
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

  const fake: FakeStripe = {
    url: "",
    sessions,
    failNext: 0,
    event(sessionId, eventOptions = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no fake session ${sessionId}`);
      eventCounter += 1;
      const id = eventOptions.id ?? `evt_fake_${eventCounter}`;
      const payload = JSON.stringify({
        id,
        object: "event",
        api_version: "2025-01-01",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: eventOptions.type ?? "checkout.session.completed",
        data: { object: sessionObject(session, eventOptions.paymentStatus ?? "paid", fake.url) },
      });
      const signature = signer.webhooks.generateTestHeaderString({
        payload,
        secret: eventOptions.secret ?? options.webhookSecret,
      });
      return { id, payload, signature };
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
      counter += 1;
      const metadata: Record<string, string> = {};
      for (const [key, value] of form) {
        const m = /^metadata\[(.+)\]$/.exec(key);
        if (m?.[1]) metadata[m[1]] = value;
      }
      const session: FakeSession = {
        id: `cs_test_fake${counter}`,
        amountMinor: Number(form.get("line_items[0][price_data][unit_amount]")),
        currency: form.get("line_items[0][price_data][currency]") ?? "",
        metadata,
        clientReferenceId: form.get("client_reference_id"),
        successUrl: form.get("success_url") ?? "",
        cancelUrl: form.get("cancel_url") ?? "",
        paymentIntent: `pi_test_fake${counter}`,
        form,
      };
      sessions.set(session.id, session);
      return json(res, 200, sessionObject(session, "unpaid", fake.url));
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
      const event = fake.event(session.id);
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

function sessionObject(session: FakeSession, paymentStatus: "paid" | "unpaid", base: string) {
  return {
    id: session.id,
    object: "checkout.session",
    mode: "payment",
    status: paymentStatus === "paid" ? "complete" : "open",
    payment_status: paymentStatus,
    amount_total: session.amountMinor,
    currency: session.currency,
    client_reference_id: session.clientReferenceId,
    metadata: session.metadata,
    payment_intent: paymentStatus === "paid" ? session.paymentIntent : null,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    url: `${base}/pay/${session.id}`,
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
