// Shared checks over every route in the OpenAPI document: bad input and bad credentials always get
// their documented 4xx body, never a 500, on both databases. New routes are covered as soon as
// they are registered; their documented body and parameters are filled with bad text (NUL, a lone
// surrogate, overlong strings) to prove it never reaches storage (ADR 0021).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, TEST_ADMIN_TOKEN, UNLIMITED_RATE_ENV } from "../support/harness.js";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type JsonSchema = Record<string, unknown>;
interface Route {
  method: Method;
  url: string;
  /** The documented path, `{param}` left in. */
  template: string;
  security: Record<string, string[]>[] | undefined;
  hasBody: boolean;
  bodySchema: JsonSchema | undefined;
  queryNames: string[];
}

/** A body of the schema's shape whose every string is `text` (enums keep a valid value). */
function bodyOf(schema: JsonSchema | undefined, text: string, depth = 0): unknown {
  if (!schema || depth > 4) return text;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return bodyOf(union.find((b) => b.type !== "null") ?? union[0], text, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const entries = Object.entries(props).map(([k, v]) => [k, bodyOf(v, text, depth + 1)]);
      return Object.fromEntries(entries.length > 0 ? entries : [[text, text]]);
    }
    case "array":
      return [bodyOf(schema.items as JsonSchema | undefined, text, depth + 1)];
    case "boolean":
      return false;
    case "integer":
    case "number":
      return 1;
    default:
      return text;
  }
}

/** URL-encoded; a lone surrogate as the bytes a careless client sends for it (invalid UTF-8). */
const encodeLoosely = (text: string) =>
  text
    .split(/([\ud800-\udfff])/)
    .map((part, i) => (i % 2 === 1 ? "%ED%A0%80" : encodeURIComponent(part)))
    .join("");

/** Bad text: each must be refused before storage (a 4xx), never a 500. */
const BAD_TEXT: [string, string][] = [
  ["NUL", "a\u0000b"],
  ["a control character", "a\u0007b"],
  ["a lone surrogate", "a\ud800b"],
];

function assertErrorBody(
  res: { statusCode: number; json(): Record<string, unknown> },
  status: number,
  label: string,
) {
  assert.equal(res.statusCode, status, label);
  const body = res.json();
  for (const field of ["error", "error_code", "message", "details"])
    assert.ok(field in body, `${label}: ${field}`);
  assert.match(String(body.error_code), /^[A-Z_]+$/, label);
}

for (const kind of dialects())
  describe(`every route (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    const routes: Route[] = [];
    let apiKey = "";
    let publishableKey = "";
    let jwt = "";
    let doc: Record<string, unknown>;

    before(async () => {
      if (skip) return;
      h = await startHarness(kind, {
        ...UNLIMITED_RATE_ENV,
        MAX_BODY_BYTES: "65536",
      });
      apiKey = await h.apiKey("acct_routes");
      jwt = await h.token("acct_routes");
      publishableKey = (
        await h.app.inject({
          method: "POST",
          url: "/v1/auth/keys",
          headers: { authorization: `Bearer ${jwt}` },
          payload: { name: "widget", type: "publishable", allowedOrigins: ["https://shop.example.com"] },
        })
      ).json().api_key;
      doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
      const paths = doc.paths as Record<
        string,
        Record<
          string,
          {
            security?: Route["security"];
            requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
            parameters?: { in: string; name: string }[];
          }
        >
      >;
      for (const [path, ops] of Object.entries(paths)) {
        for (const [method, op] of Object.entries(ops)) {
          routes.push({
            method: method.toUpperCase() as Method,
            url: path.replace(/\{[^}]+\}/g, "does_not_exist"),
            template: path,
            security: op.security,
            hasBody: Boolean(op.requestBody),
            bodySchema: op.requestBody?.content?.["application/json"]?.schema,
            queryNames: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
          });
        }
      }
    });
    after(async () => h?.close());

    const authed = (r: Route): Record<string, string> => {
      if (r.url.startsWith("/v1/admin/")) return { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      if (r.security?.some((s) => "publishableKey" in s))
        return { "x-api-key": publishableKey, origin: "https://shop.example.com" };
      if (r.security?.some((s) => "apiKey" in s)) return { "x-api-key": apiKey };
      return { authorization: `Bearer ${jwt}` };
    };
    const needsAuth = (r: Route) => (r.security?.length ?? 0) > 0;

    it("publishes a valid OpenAPI 3.1 document listing every route", { skip }, async () => {
      const result = await new Validator().validate(doc);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
      assert.equal(doc.openapi, "3.1.0");
      const listed = new Set(routes.map((r) => `${r.method} ${r.url}`));
      for (const expected of [
        "GET /health",
        "GET /readiness",
        "GET /liveness",
        "POST /v1/auth/keys",
        "GET /v1/auth/keys",
        "DELETE /v1/auth/keys/does_not_exist",
        "GET /v1/credits",
        "GET /v1/credits/transactions",
        "POST /v1/admin/accounts/does_not_exist/credits",
      ]) {
        assert.ok(listed.has(expected), `${expected} is documented`);
      }
    });

    it("serves the interactive reference at /docs from local assets", { skip }, async () => {
      const res = await h.app.inject({ method: "GET", url: "/docs" });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /swagger-ui/);
      assert.equal(/src="https?:|href="https?:/.test(res.body), false, "no CDN assets");
      const css = await h.app.inject({ method: "GET", url: "/docs/static/swagger-ui.css" });
      assert.equal(css.statusCode, 200);
    });

    it("answers missing and bad credentials with 401 on every authenticated route", { skip }, async () => {
      for (const r of routes.filter(needsAuth)) {
        const label = `${r.method} ${r.url}`;
        const none = await h.app.inject({ method: r.method, url: r.url });
        assertErrorBody(none, r.url.startsWith("/v1/admin/") ? 401 : 401, `${label} without credentials`);
        const bad = await h.app.inject({
          method: r.method,
          url: r.url,
          headers:
            r.url.startsWith("/v1/admin/") || !r.security?.some((s) => "apiKey" in s)
              ? { authorization: "Bearer not-a-token" }
              : { "x-api-key": `sk_${"x".repeat(40)}` },
        });
        assertErrorBody(bad, 401, `${label} with bad credentials`);
      }
    });

    it("answers malformed JSON with 400, wrong types with 422 and huge bodies with 413 on every route with a body", {
      skip,
    }, async () => {
      for (const r of routes.filter((x) => x.hasBody)) {
        const label = `${r.method} ${r.url}`;
        const headers = { ...authed(r), "content-type": "application/json" };
        const malformed = await h.app.inject({ method: r.method, url: r.url, headers, payload: '{"a":' });
        assertErrorBody(malformed, 400, `${label} malformed JSON`);
        assert.equal(malformed.json().error_code, "INVALID_JSON");

        const wrong = await h.app.inject({ method: r.method, url: r.url, headers, payload: "[1,2,3]" });
        assert.ok([404, 422].includes(wrong.statusCode), `${label} wrong types: ${wrong.statusCode}`);
        if (wrong.statusCode === 422) {
          const body = wrong.json();
          assert.equal(body.error_code, "VALIDATION_ERROR");
          assert.ok(Array.isArray(body.details.errors) && body.details.errors.length > 0);
          assert.ok(Array.isArray(body.detail) && body.detail.length > 0);
        }

        const huge = await h.app.inject({
          method: r.method,
          url: r.url,
          headers,
          payload: JSON.stringify({ blob: "x".repeat(70_000) }),
        });
        assertErrorBody(huge, 413, `${label} huge body`);
      }
    });

    it("answers unknown routes with a JSON 404", { skip }, async () => {
      for (const url of ["/nope", "/v1/nope", "/v2/leads"]) {
        assertErrorBody(await h.app.inject({ method: "GET", url }), 404, url);
      }
    });

    it("never answers 500 to any route called with junk", { skip }, async () => {
      for (const r of routes) {
        for (const payload of [undefined, "null", '"str"', "{}", '{"name":{"$gt":""}}']) {
          const res = await h.app.inject({
            method: r.method,
            url: `${r.url}?limit=abc&offset=-1`,
            headers: { ...authed(r), ...(payload ? { "content-type": "application/json" } : {}) },
            ...(payload ? { payload } : {}),
          });
          assert.ok(res.statusCode < 500, `${r.method} ${r.url} ${payload}: ${res.statusCode} ${res.body}`);
        }
      }
    });
    it("refuses NUL, control characters and lone surrogates in any body field, query or path with a 4xx", {
      skip,
    }, async () => {
      for (const r of routes) {
        for (const [what, text] of BAD_TEXT) {
          const label = `${r.method} ${r.template} with ${what}`;
          const query = r.queryNames.map((name) => `${name}=${encodeLoosely(text)}`).join("&");
          const url = `${r.template.replace(/\{[^}]+\}/g, encodeLoosely(text))}${query ? `?${query}` : ""}`;
          const withBody = r.bodySchema !== undefined;
          const res = await h.app.inject({
            method: r.method,
            url,
            headers: { ...authed(r), ...(withBody ? { "content-type": "application/json" } : {}) },
            ...(withBody ? { payload: JSON.stringify(bodyOf(r.bodySchema, text)) } : {}),
          });
          assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body}`);
          if (withBody || query || r.template.includes("{"))
            assert.ok(res.statusCode >= 400, `${label} was accepted: ${res.statusCode} ${res.body}`);
          else if (res.statusCode >= 400) assertErrorBody(res, res.statusCode, label);
        }
      }
    });

    it("answers overlong strings in every body field with a 4xx, never a 500", { skip }, async () => {
      for (const r of routes.filter((x) => x.bodySchema !== undefined)) {
        for (const length of [5_000, 60_000]) {
          const res = await h.app.inject({
            method: r.method,
            url: r.url,
            headers: { ...authed(r), "content-type": "application/json" },
            payload: JSON.stringify(bodyOf(r.bodySchema, "x".repeat(length))),
          });
          assert.ok(
            res.statusCode < 500,
            `${r.method} ${r.url} ${length} chars: ${res.statusCode} ${res.body.slice(0, 300)}`,
          );
        }
      }
    });
  });
