// Loaded first in every process (bin/leadcheck.mjs before tsx, src/main.ts, the benchmarks'
// children through --import), for its side effect (ADR 0057). Plain JavaScript, so the entry
// point can load it before the TypeScript loader.
//
// V8 gives a plain object (`{}`, then properties added one by one, as Node builds `req.headers`
// and Fastify a reply's headers) its hidden class by following transitions from one root shared
// by the whole process, one transition per distinct first key. That root holds at most 1,536
// transitions, and our process fills it while it loads: every CommonJS module's first export, the
// names Fastify's schema compilers generate (`_errs12`, `__fjs_root_7`, ...). Once it is full, an
// object whose first key has no transition yet gets hidden classes of its own, made afresh each
// time, and every read of it goes megamorphic: the same constant handler cost 35-40 µs a request
// in a fresh process and 65-85 µs in ours. Taking the transitions our requests need before
// anything else loads keeps those objects on the shared, cached path.

/** First keys of the objects every request builds: request header names (lower-cased, as Node
 *  keys `req.headers`, in the orders clients send them), reply header names (Fastify keeps a
 *  reply's headers in a plain object), path parameter names, and the first fields of the JSON
 *  bodies and rows we parse. */
const FIRST_KEYS = [
  // request headers
  "host",
  "connection",
  "user-agent",
  "accept",
  "accept-encoding",
  "accept-language",
  "content-type",
  "content-length",
  "origin",
  "referer",
  "authorization",
  "x-api-key",
  "x-request-id",
  "x-account-id",
  "x-csrf-token",
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-real-ip",
  "cookie",
  "cache-control",
  "pragma",
  "transfer-encoding",
  "upgrade",
  "expect",
  "idempotency-key",
  "if-none-match",
  "sec-fetch-site",
  "sec-fetch-mode",
  "sec-fetch-dest",
  "sec-ch-ua",
  "sec-ch-ua-mobile",
  "sec-ch-ua-platform",
  "priority",
  "te",
  "via",
  "forwarded",
  "stripe-signature",
  // reply headers
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-max-age",
  "vary",
  "location",
  "content-disposition",
  "set-cookie",
  // path parameters (find-my-way builds `request.params` key by key)
  "leadId",
  "lead_id",
  "batchId",
  "jobId",
  "key_id",
  "webhook_id",
  "delivery_id",
  "connectionId",
  "syncId",
  "watchId",
  "export_id",
  "memberId",
  "invitationId",
  "userId",
  // JSON bodies and rows
  "id",
  "email",
  "name",
  "type",
  "leads",
  "items",
  "token",
  "website",
  "r",
];

/**
 * The objects that hold the transitions. A transition lives only while something uses its hidden
 * class: these stay referenced for the life of the process through this export (a module-level
 * constant that nothing reads is dropped after the module runs, and the next full GC then frees
 * its transitions for whatever loads next). String values, as headers.
 */
export const shapeHolders = [];

for (const name of FIRST_KEYS) {
  const holder = {};
  holder[name] = "";
  shapeHolders.push(holder);
}
