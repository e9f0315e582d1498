// Teams through the API on both dialects: members and roles, invitations bound to a verified
// email (single use, 7 days), the account a bearer request acts on, the last owner, and keys that
// outlive the member who made them.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { bearer, identityToken, join } from "./team-support.js";

const DAY_MS = 24 * 3_600_000;

for (const kind of dialects()) {
  describe(`teams (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let nowMs = Date.parse("2026-06-01T12:00:00Z");
    const clock = { now: () => new Date(nowMs) };
    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV, { clock });
    });
    after(async () => h?.close());

    const call = async (
      subject: string,
      method: "GET" | "POST" | "PATCH" | "DELETE",
      url: string,
      options: { account?: string; payload?: object; token?: string } = {},
    ) =>
      h.app.inject({
        method,
        url,
        headers: options.token
          ? {
              authorization: `Bearer ${options.token}`,
              ...(options.account ? { "x-account-id": options.account } : {}),
            }
          : await bearer(subject, options.account),
        ...(options.payload ? { payload: options.payload } : {}),
      });
    const invite = async (account: string, email: string, role = "developer") => {
      const res = await call(account, "POST", "/v1/team/invitations", { account, payload: { email, role } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { token: string; url: string; expiresAt: string; id: string };
    };

    it("makes an account's own identity its owner, listed as the only member", { skip }, async () => {
      const res = await call("acct_solo", "GET", "/v1/team/members");
      assert.equal(res.statusCode, 200, res.body);
      const { members, you } = res.json();
      assert.equal(members.length, 1);
      assert.equal(members[0].subject, "acct_solo");
      assert.equal(members[0].role, "owner");
      assert.equal(members[0].id, you);
    });

    it("gives a single-use link that expires in 7 days, bound to the verified email", { skip }, async () => {
      const created = await invite("acct_inv", "dana@example.test", "analyst");
      assert.equal(Date.parse(created.expiresAt) - nowMs, 7 * DAY_MS);
      assert.match(created.url, /\/dashboard\/#invitation=inv_/);
      const pending = (await call("acct_inv", "GET", "/v1/team/invitations")).json().invitations;
      assert.deepEqual(
        pending.map((i: { email: string }) => i.email),
        ["dana@example.test"],
      );
      const accept = (token: string) =>
        call("dana", "POST", `/v1/team/invitations/${created.token}/accept`, { token });

      // Another identity, or the same address not verified by the provider, is refused.
      const other = await accept(await identityToken("eve", "eve@example.test"));
      assert.equal(other.statusCode, 403, other.body);
      assert.equal(other.json().details.reason, "email_mismatch");
      const unverified = await accept(await identityToken("dana", "dana@example.test", false));
      assert.equal(unverified.statusCode, 403);
      const noEmail = await accept(await identityToken("dana", null));
      assert.equal(noEmail.statusCode, 403);

      const ok = await accept(await identityToken("dana", "DANA@example.test"));
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().accountId, "acct_inv");
      assert.equal(ok.json().member.role, "analyst");

      const again = await accept(await identityToken("dana2", "dana@example.test"));
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().details.reason, "used");
      assert.equal((await call("acct_inv", "GET", "/v1/team/invitations")).json().invitations.length, 0);

      const unknown = await call("dana", "POST", "/v1/team/invitations/inv_nothing_like_this/accept");
      assert.equal(unknown.statusCode, 404);
    });

    it("refuses an invitation after its 7 days", { skip }, async () => {
      const created = await invite("acct_exp", "late@example.test");
      nowMs += 7 * DAY_MS - 1000;
      const beforeEnd = (await call("acct_exp", "GET", "/v1/team/invitations")).json().invitations;
      assert.equal(beforeEnd.length, 1);
      nowMs += 1000;
      const res = await call("late", "POST", `/v1/team/invitations/${created.token}/accept`, {
        token: await identityToken("late", "late@example.test"),
      });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().details.reason, "expired");
      assert.equal((await call("late", "GET", "/v1/team/members", { account: "acct_exp" })).statusCode, 404);
    });

    it("acts on the account X-Account-Id names; a non-member is 404 like a missing account", {
      skip,
    }, async () => {
      await join(h, "acct_shared", "acct_shared", "sam", "developer");
      const lead = await call("sam", "POST", "/v1/leads", {
        account: "acct_shared",
        payload: { email: "lead@shared.example", source: "manual" },
      });
      assert.equal(lead.statusCode, 201, lead.body);
      const shared = await call("acct_shared", "GET", "/v1/leads");
      assert.equal(shared.json().leads?.length ?? shared.json().data?.length, 1, shared.body);
      const own = await call("sam", "GET", "/v1/leads");
      assert.equal(own.statusCode, 200);
      assert.equal(own.json().leads?.length ?? own.json().data?.length, 0, "own account untouched");

      const stranger = await call("mallory", "GET", "/v1/leads", { account: "acct_shared" });
      assert.equal(stranger.statusCode, 404);
      assert.equal(stranger.json().error_code, "NOT_FOUND");
      const missing = await call("mallory", "GET", "/v1/leads", { account: "acct_does_not_exist" });
      assert.deepEqual(missing.json().error_code, stranger.json().error_code);
    });

    it("refuses a role without the permission with 403 and the role required", { skip }, async () => {
      await join(h, "acct_roles", "acct_roles", "ana", "analyst");
      const res = await call("ana", "POST", "/v1/auth/keys", {
        account: "acct_roles",
        payload: { name: "x" },
      });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error_code, "INSUFFICIENT_PERMISSIONS");
      assert.equal(res.json().details.requiredRole, "developer");
      assert.equal((await call("ana", "GET", "/v1/leads", { account: "acct_roles" })).statusCode, 200);
    });

    it("never loses its last owner, and only owners touch owners", { skip }, async () => {
      const admin = await join(h, "acct_owner", "acct_owner", "adam", "admin");
      const members = (await call("acct_owner", "GET", "/v1/team/members")).json();
      const owner = members.you as string;

      const leave = await call("acct_owner", "DELETE", `/v1/team/members/${owner}`);
      assert.equal(leave.statusCode, 409, leave.body);
      assert.equal(leave.json().details.reason, "last_owner");
      const demote = await call("acct_owner", "PATCH", `/v1/team/members/${owner}`, {
        payload: { role: "admin" },
      });
      assert.equal(demote.statusCode, 409);

      const byAdmin = await call("adam", "DELETE", `/v1/team/members/${owner}`, { account: "acct_owner" });
      assert.equal(byAdmin.statusCode, 403);
      assert.equal(byAdmin.json().details.requiredRole, "owner");
      const promote = await call("adam", "PATCH", `/v1/team/members/${admin}`, {
        account: "acct_owner",
        payload: { role: "owner" },
      });
      assert.equal(promote.statusCode, 403);

      // With a second owner, the first may leave; then the second is the last.
      const second = await call("acct_owner", "PATCH", `/v1/team/members/${admin}`, {
        payload: { role: "owner" },
      });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal((await call("acct_owner", "DELETE", `/v1/team/members/${owner}`)).statusCode, 200);
      const last = await call("adam", "DELETE", `/v1/team/members/${admin}`, { account: "acct_owner" });
      assert.equal(last.statusCode, 409);
      // The removed owner's own identity does not become owner again.
      assert.equal((await call("acct_owner", "GET", "/v1/team/members")).statusCode, 404);
    });

    it("keeps two owners demoting each other at once from leaving none", { skip }, async () => {
      const other = await join(h, "acct_race", "acct_race", "rita", "owner");
      const me = (await call("acct_race", "GET", "/v1/team/members")).json().you;
      const [a, b] = await Promise.all([
        call("acct_race", "PATCH", `/v1/team/members/${other}`, { payload: { role: "developer" } }),
        call("rita", "PATCH", `/v1/team/members/${me}`, {
          account: "acct_race",
          payload: { role: "developer" },
        }),
      ]);
      // The loser is refused either by the last-owner rule (409) or, when the winner's change
      // landed before its request was authorized, by its new role (403).
      const statuses = [a.statusCode, b.statusCode].sort();
      assert.equal(statuses[0], 200, `${a.body} ${b.body}`);
      assert.ok(statuses[1] === 403 || statuses[1] === 409, `${a.body} ${b.body}`);
      const members = (
        await call("acct_race", "GET", "/v1/team/members", {
          token: await identityToken(a.statusCode === 200 ? "acct_race" : "rita"),
          account: "acct_race",
        })
      ).json().members;
      assert.equal(members.filter((m: { role: string }) => m.role === "owner").length, 1);
    });

    it("ends a removed member's access at once; keys they made keep working and name them", {
      skip,
    }, async () => {
      const dev = await join(h, "acct_keys", "acct_keys", "kim", "developer");
      const created = await call("kim", "POST", "/v1/auth/keys", {
        account: "acct_keys",
        payload: { name: "ci" },
      });
      assert.equal(created.statusCode, 201, created.body);
      const apiKey = created.json().api_key as string;
      assert.equal((await call("kim", "GET", "/v1/leads", { account: "acct_keys" })).statusCode, 200);

      const removed = await call("acct_keys", "DELETE", `/v1/team/members/${dev}`);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal((await call("kim", "GET", "/v1/leads", { account: "acct_keys" })).statusCode, 404);
      assert.equal((await h.call(apiKey, "GET", "/v1/leads")).statusCode, 200);

      const listed = (await call("acct_keys", "GET", "/v1/auth/keys")).json().keys;
      const ci = listed.find((k: { name: string }) => k.name === "ci");
      assert.deepEqual(ci.created_by, {
        memberId: dev,
        subject: "kim",
        email: "kim@example.test",
        current: false,
      });
      assert.equal((await call("acct_keys", "GET", "/v1/team/members")).json().members.length, 1);
    });
  });
}
