// Every route declares what a key needs, once, beside its schema (config.permission), and the
// declaration is what the service enforces: table-driven from the app's own route list, each
// permission is refused to a key without it and allowed to a key with only it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { routeAccessOf } from "../../src/http/auth.js";
import { PERMISSIONS, type Permission } from "../../src/keys/key-policy.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const kind = dialects()[0]!;
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

describe(`route permissions (${kind})`, async () => {
  const skip = await skipReasonFor(kind);
  let h: Harness;
  let routes: [string, string | undefined][];
  const only = new Map<Permission, string>();
  const allBut = new Map<Permission, string>();

  before(async () => {
    if (skip) return;
    h = await startHarness(kind, UNLIMITED_RATE_ENV);
    routes = [...routeAccessOf(h.app)];
    const jwt = await h.token("acct_perms");
    for (const permission of PERMISSIONS) {
      for (const [map, permissions] of [
        [only, [permission]],
        [allBut, PERMISSIONS.filter((p) => p !== permission)],
      ] as const) {
        const res = await h.app.inject({
          method: "POST",
          url: "/v1/auth/keys",
          headers: { authorization: `Bearer ${jwt}` },
          payload: { name: `${permission}`, permissions },
        });
        assert.equal(res.statusCode, 201, res.body);
        map.set(permission, res.json().api_key);
      }
    }
  });
  after(async () => h?.close());

  it("has a declared access for every /v1 route", { skip }, () => {
    const v1 = routes.filter(([route]) => route.split(" ")[1]!.startsWith("/v1/"));
    assert.ok(v1.length > 40, `only ${v1.length} routes seen`);
    const undeclared = v1.filter(([, access]) => access === undefined).map(([route]) => route);
    assert.deepEqual(undeclared, [], `routes without config.permission: ${undeclared.join(", ")}`);
  });

  it("shows each operation's permission in the OpenAPI document", { skip }, async () => {
    const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, Record<string, unknown>>>,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok(op["x-permission"], `${method.toUpperCase()} ${path} has x-permission`);
        const access = String(op["x-permission"]);
        if (access.includes(":"))
          assert.match(String(op.description), new RegExp(access), `${method} ${path}`);
      }
    }
  });

  const guarded = () =>
    routes.filter((entry): entry is [string, Permission] =>
      (PERMISSIONS as readonly string[]).includes(String(entry[1])),
    );

  it("refuses every guarded route to a key holding every permission but its own", { skip }, async () => {
    for (const [route, permission] of guarded()) {
      const [method, path] = route.split(" ") as [Method, string];
      const url = path.replace(/:[A-Za-z_]+/g, "does_not_exist");
      const res = await h.app.inject({ method, url, headers: { "x-api-key": allBut.get(permission)! } });
      assert.equal(res.statusCode, 403, `${route} without ${permission}: ${res.body}`);
      assert.equal(res.json().error_code, "INSUFFICIENT_PERMISSIONS", route);
      assert.equal(res.json().details.required, permission, route);
    }
  });

  it("lets any secret key through to routes that need no permission", { skip }, async () => {
    for (const [route] of routes.filter(([, access]) => access === "authenticated")) {
      const [method, path] = route.split(" ") as [Method, string];
      const res = await h.app.inject({
        method,
        url: path,
        headers: { "x-api-key": only.get("leads:read")! },
      });
      assert.notEqual(res.statusCode, 403, `${route}: ${res.body}`);
    }
  });

  it("lets a key holding only the route's permission through to the route itself", { skip }, async () => {
    for (const [route, permission] of guarded()) {
      const [method, path] = route.split(" ") as [Method, string];
      const url = path.replace(/:[A-Za-z_]+/g, "does_not_exist");
      const res = await h.app.inject({ method, url, headers: { "x-api-key": only.get(permission)! } });
      assert.notEqual(res.statusCode, 403, `${route} with only ${permission}: ${res.body}`);
      assert.notEqual(res.statusCode, 401, route);
    }
  });
});
