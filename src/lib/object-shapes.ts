// Imported first by the composition root (src/main.ts), for its side effect (ADR 0057).
//
// V8 gives a plain object (`{}`, then properties added one by one) its hidden class by following
// transitions from one root shared by the whole process, one transition per distinct first key.
// That root holds at most 1,536 transitions. Our process fills it while it loads: every CommonJS
// module's first export, and the names Fastify's schema compilers generate (`_errs12`,
// `__fjs_root_7`, ...). Once it is full, an object whose first key has no transition yet gets
// hidden classes of its own, made afresh each time: Node's `req.headers` (built key by key from
// the raw headers, `host` first) then cost about 25 µs more per request, and every read of it
// went megamorphic (measured: the same constant handler, 35-40 µs in a fresh process, 65-85 µs
// in ours). Taking the transitions our requests need before anything else loads keeps them on
// the shared, cached path.

/** Header names a client may send first, lower-cased as Node's `req.headers` keys them. */
const FIRST_HEADERS = [
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
] as const;

/**
 * The objects that hold the transitions: a transition lives while an object (or code) uses its
 * hidden class, so these stay referenced for the life of the process. String values, as headers.
 */
const holders: Record<string, string>[] = [];

for (const name of FIRST_HEADERS) {
  const holder: Record<string, string> = {};
  holder[name] = "";
  holders.push(holder);
}
