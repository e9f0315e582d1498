// The server pieces the dashboard's Team, Settings and account switcher stand on, on both
// dialects: a pending invitation withdrawn (team:write, owners' by owners only, its link dead
// after), every team change in the audit log under the member who made it, GET /v1/me (role,
// permissions and every account of a person; a key's own permissions), and erasing a person by
// email (aliases folded, archived leads too, 404 when no lead has the address).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { bearer, identityToken, join } from "./team-support.js";

for (const kind of dialects()) {
  describe(`team dashboard endpoints (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV);
    });
    after(async () => h?.close());

    const call = async (
      subject: string,
      method: "GET" | "POST" | "PATCH" | "DELETE",
      url: string,
      options: { account?: string; payload?: object } = {},
    ) =>
      h.app.inject({
        method,
        url,
        headers: await bearer(subject, options.account),
        ...(options.payload ? { payload: options.payload } : {}),
      });

    it("withdraws a pending invitation: its link is dead, analysts and developers may not, admins not an owner's", {
      skip,
    }, async () => {
      const account = "acct_revoke";
      await join(h, account, account, "ada_admin", "admin");
      await join(h, account, account, "dev_dev", "developer");
      const invite = async (email: string, role: string, by = account) => {
        const res = await call(by, "POST", "/v1/team/invitations", { account, payload: { email, role } });
        assert.equal(res.statusCode, 201, res.body);
        return res.json() as { id: string; token: string };
      };
      const pending = await invite("zoe@example.test", "analyst");
      const owners = await invite("olga@example.test", "owner");

      const byDeveloper = await call("dev_dev", "DELETE", `/v1/team/invitations/${pending.id}`, { account });
      assert.equal(byDeveloper.statusCode, 403);
      assert.equal(byDeveloper.json().error_code, "INSUFFICIENT_PERMISSIONS");
      const adminOnOwner = await call("ada_admin", "DELETE", `/v1/team/invitations/${owners.id}`, {
        account,
      });
      assert.equal(adminOnOwner.statusCode, 403, adminOnOwner.body);
      assert.equal(adminOnOwner.json().details.requiredRole, "owner");

      const revoked = await call("ada_admin", "DELETE", `/v1/team/invitations/${pending.id}`, { account });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.deepEqual(revoked.json(), { message: "Invitation withdrawn", invitationId: pending.id });
      const again = await call(account, "DELETE", `/v1/team/invitations/${pending.id}`);
      assert.equal(again.statusCode, 404);
      const list = (await call(account, "GET", "/v1/team/invitations")).json().invitations as {
        id: string;
      }[];
      assert.deepEqual(
        list.map((i) => i.id),
        [owners.id],
      );
      const accept = await h.app.inject({
        method: "POST",
        url: `/v1/team/invitations/${pending.token}/accept`,
        headers: { authorization: `Bearer ${await identityToken("zoe", "zoe@example.test")}` },
      });
      assert.equal(accept.statusCode, 404, "a withdrawn link opens nothing");

      // Another account's invitation is the same 404 as a missing one.
      const stranger = await call("acct_elsewhere", "DELETE", `/v1/team/invitations/${owners.id}`);
      assert.equal(stranger.statusCode, 404);
      // An accepted invitation is a member now: withdrawing it is 404.
      const accepted = await invite("late@example.test", "analyst");
      const joined = await h.app.inject({
        method: "POST",
        url: `/v1/team/invitations/${accepted.token}/accept`,
        headers: { authorization: `Bearer ${await identityToken("late", "late@example.test")}` },
      });
      assert.equal(joined.statusCode, 200, joined.body);
      assert.equal((await call(account, "DELETE", `/v1/team/invitations/${accepted.id}`)).statusCode, 404);
    });

    it("records invitations, role changes, removals and withdrawals under the member who made them", {
      skip,
    }, async () => {
      const account = "acct_team_audit";
      const you = (await call(account, "GET", "/v1/team/members")).json().you as string;
      const member = await join(h, account, account, "tia", "analyst");
      assert.equal(
        (await call(account, "PATCH", `/v1/team/members/${member}`, { payload: { role: "developer" } }))
          .statusCode,
        200,
      );
      const invited = (
        await call(account, "POST", "/v1/team/invitations", {
          payload: { email: "x@example.test", role: "analyst" },
        })
      ).json();
      assert.equal((await call(account, "DELETE", `/v1/team/invitations/${invited.id}`)).statusCode, 200);
      assert.equal((await call(account, "DELETE", `/v1/team/members/${member}`)).statusCode, 200);
      // The last owner stays: refused, and nothing recorded for it.
      assert.equal((await call(account, "DELETE", `/v1/team/members/${you}`)).statusCode, 409);

      const log = await call(account, "GET", "/v1/audit-log?limit=50");
      assert.equal(log.statusCode, 200, log.body);
      const entries = (
        log.json().entries as {
          action: string;
          actor: { kind: string; id: string };
          target: { id: string };
          details: Record<string, unknown>;
        }[]
      )
        .filter((e) => e.action.startsWith("member."))
        .reverse();
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor.kind, e.actor.id]),
        [
          ["member.invited", "member", you],
          ["member.role_changed", "member", you],
          ["member.invited", "member", you],
          ["member.invitation_revoked", "member", you],
          ["member.removed", "member", you],
        ],
      );
      assert.deepEqual(entries[1]!.details, { email: "tia@example.test", from: "analyst", to: "developer" });
      assert.equal(entries[3]!.target.id, invited.id);
      assert.equal(JSON.stringify(entries).includes("inv_"), true, "targets name invitations by id");
      assert.equal(JSON.stringify(entries).includes(invited.token), false, "never the link's token");
      const verify = (await call(account, "GET", "/v1/audit-log/verify")).json();
      assert.equal(verify.valid, true);
    });

    it("GET /v1/me: the role and permissions here, and every account of the person", { skip }, async () => {
      await join(h, "acct_me_team", "acct_me_team", "mia", "analyst");
      const own = await call("mia", "GET", "/v1/me");
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(own.json().accountId, "mia");
      assert.equal(own.json().role, "owner");
      assert.equal(own.json().via, "jwt");
      assert.deepEqual(
        own.json().accounts.map((a: { accountId: string; role: string }) => [a.accountId, a.role]),
        [
          ["mia", "owner"],
          ["acct_me_team", "analyst"],
        ],
      );
      const there = (await call("mia", "GET", "/v1/me", { account: "acct_me_team" })).json();
      assert.equal(there.accountId, "acct_me_team");
      assert.equal(there.role, "analyst");
      assert.deepEqual(there.permissions, [
        "batches:write",
        "checks:write",
        "credits:read",
        "leads:read",
        "team:read",
      ]);
      assert.equal(there.member.subject, "mia");
      assert.equal(there.member.email, "mia@example.test");
      // Without OIDC_ISSUER the sign-in page offers no single sign-on.
      const sso = await h.app.inject({ method: "GET", url: "/v1/auth/sso" });
      assert.deepEqual(sso.json(), { enabled: false, loginUrl: null });
      // Not a member: the same 404 as a missing account.
      assert.equal((await call("mia", "GET", "/v1/me", { account: "acct_nobody" })).statusCode, 404);

      const created = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: await bearer("acct_me_team"),
        payload: { name: "reader", permissions: ["leads:read"] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const byKey = await h.call(created.json().api_key, "GET", "/v1/me");
      assert.equal(byKey.statusCode, 200, byKey.body);
      const me = byKey.json() as { key: { id: string } };
      assert.match(me.key.id, /^key_/);
      assert.deepEqual(
        { ...me, key: { ...me.key, id: "key" } },
        {
          accountId: "acct_me_team",
          via: "api_key",
          role: null,
          permissions: ["leads:read"],
          member: null,
          key: { id: "key", type: "secret", mode: "live" },
          accounts: [],
        },
      );
    });

    it("lists a publishable key's abuse limits in force: its own, else the server's defaults", {
      skip,
    }, async () => {
      const headers = await bearer("acct_widget_list");
      const created = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers,
        payload: {
          name: "form",
          type: "publishable",
          allowedOrigins: ["https://www.acme.test"],
          widget: { dailyCap: 50, captcha: "turnstile" },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      await h.app.inject({ method: "POST", url: "/v1/auth/keys", headers, payload: { name: "server" } });
      const keys = (await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers })).json().keys as {
        name: string;
        widget: unknown;
      }[];
      const byName = Object.fromEntries(keys.map((k) => [k.name, k.widget]));
      assert.deepEqual(byName.form, {
        dailyCap: 50,
        perIpPerMinute: 30,
        perEmailPerMinute: 10,
        distinctEmailsPerIpPerDay: 20,
        captcha: "turnstile",
      });
      assert.equal(byName.server, null);
    });

    it("erases a person by email: every lead with the mailbox, archived too; 404 when none has it", {
      skip,
    }, async () => {
      const apiKey = await h.apiKey("acct_erase_person");
      const first = await h.call(apiKey, "POST", "/v1/leads", {
        email: "j.doe+crm@gmail.com",
        validate: false,
      });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal((await h.call(apiKey, "DELETE", `/v1/leads/${first.json().id}`)).statusCode, 200);
      const kept = await h.call(apiKey, "POST", "/v1/leads", { email: "someone@else.test", validate: false });

      const bad = await h.call(apiKey, "POST", "/v1/leads/erase", { email: "not an address" });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.equal(bad.json().error_code, "VALIDATION_ERROR");
      const erased = await h.call(apiKey, "POST", "/v1/leads/erase", { email: "JDoe@gmail.com" });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.equal(erased.json().email, "JDoe@gmail.com");
      assert.deepEqual(
        erased
          .json()
          .leads.map((l: { lead_id: string; already_erased: boolean }) => [l.lead_id, l.already_erased]),
        [[first.json().id, false]],
      );
      assert.equal(erased.json().leads[0].removed.leads, 1);
      assert.equal((await h.call(apiKey, "GET", `/v1/leads/${first.json().id}`)).statusCode, 404);
      assert.equal((await h.call(apiKey, "GET", `/v1/leads/${kept.json().id}`)).statusCode, 200);
      const none = await h.call(apiKey, "POST", "/v1/leads/erase", { email: "jdoe@gmail.com" });
      assert.equal(none.statusCode, 404, none.body);
      // Another account's person is not found here.
      const otherKey = await h.apiKey("acct_erase_other");
      assert.equal(
        (await h.call(otherKey, "POST", "/v1/leads/erase", { email: "someone@else.test" })).statusCode,
        404,
      );
    });
  });
}
