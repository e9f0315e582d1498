// Every route against every role, from the role matrix written out here (not imported
// from the code it checks): a member whose role lacks the route's declared permission is refused
// with 403 INSUFFICIENT_PERMISSIONS naming the least role that has it, and a member whose role
// has it is never refused so. A route without a declared permission fails the first test.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { routeAccessOf } from "../../src/http/auth.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { bearer, join } from "./team-support.js";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const ROLES = ["owner", "admin", "developer", "analyst"] as const;

/** Issue 25's matrix: the declared permissions each role holds. */
const MATRIX: Record<(typeof ROLES)[number], string[]> = {
  owner: [
    "checks:write",
    "leads:read",
    "leads:write",
    "batches:write",
    "webhooks:read",
    "webhooks:write",
    "credits:read",
    "connections:write",
    "keys:write",
    "team:read",
    "team:write",
    "billing:write",
    "audit:read",
    "data:admin",
  ],
  admin: [
    "checks:write",
    "leads:read",
    "leads:write",
    "batches:write",
    "webhooks:read",
    "webhooks:write",
    "credits:read",
    "connections:write",
    "keys:write",
    "team:read",
    "team:write",
    "audit:read",
    "data:admin",
  ],
  developer: [
    "checks:write",
    "leads:read",
    "leads:write",
    "batches:write",
    "webhooks:read",
    "webhooks:write",
    "credits:read",
    "connections:write",
    "keys:write",
    "team:read",
  ],
  analyst: ["checks:write", "leads:read", "batches:write", "credits:read", "team:read"],
};
const LEAST_ROLE = (permission: string) => [...ROLES].reverse().find((r) => MATRIX[r].includes(permission));
/** Routes a role does not bear on: their credential is not a member's. */
const NOT_ROLE_CHECKED = new Set(["none", "admin", "publishable", "identity", "authenticated"]);

const kind = dialects()[0]!;
const ACCOUNT = "acct_matrix";

describe(`role matrix (${kind})`, async () => {
  const skip = await skipReasonFor(kind);
  let h: Harness;
  let routes: [string, string | undefined][];
  before(async () => {
    if (skip) return;
    h = await startHarness(kind, UNLIMITED_RATE_ENV);
    routes = [...routeAccessOf(h.app)].filter(([route]) => route.split(" ")[1]!.startsWith("/v1/"));
    // The account's own identity is its owner; the others join by invitation.
    await h.app.inject({ method: "GET", url: "/v1/credits", headers: await bearer(ACCOUNT) });
    for (const role of ["admin", "developer", "analyst"])
      await join(h, ACCOUNT, ACCOUNT, `matrix_${role}`, role);
  });
  after(async () => h?.close());

  it("has a declared permission for every /v1 route, and every permission is in the matrix", { skip }, () => {
    const undeclared = routes.filter(([, access]) => access === undefined).map(([route]) => route);
    assert.deepEqual(undeclared, [], `routes without config.permission: ${undeclared.join(", ")}`);
    const known = new Set([...MATRIX.owner, ...NOT_ROLE_CHECKED]);
    const unknown = routes.filter(([, access]) => !known.has(String(access)));
    assert.deepEqual(unknown, [], "permissions the matrix does not place");
  });

  it("refuses each role exactly the routes its permissions do not cover", { skip }, async () => {
    const subjectOf = {
      owner: ACCOUNT,
      admin: "matrix_admin",
      developer: "matrix_developer",
      analyst: "matrix_analyst",
    };
    let checked = 0;
    for (const [route, access] of routes) {
      if (NOT_ROLE_CHECKED.has(String(access))) continue;
      const [method, path] = route.split(" ") as [Method, string];
      const url = path.replace(/:[A-Za-z_]+/g, "does_not_exist");
      for (const role of ROLES) {
        const res = await h.app.inject({ method, url, headers: await bearer(subjectOf[role], ACCOUNT) });
        const refused = res.statusCode === 403 && res.json().error_code === "INSUFFICIENT_PERMISSIONS";
        const allowed = MATRIX[role].includes(String(access));
        assert.equal(refused, !allowed, `${role} on ${route} (${access}): ${res.statusCode} ${res.body}`);
        if (refused) {
          assert.equal(res.json().details.required, access, route);
          assert.equal(res.json().details.requiredRole, LEAST_ROLE(String(access)), route);
          assert.equal(res.json().details.role, role, route);
        }
        checked++;
      }
    }
    assert.ok(checked > 150, `only ${checked} route-role pairs checked`);
  });
});
