// `leadcheck sync` as a subprocess, as a user runs it, against the real API (listening on
// loopback) and the Google and HubSpot fakes: the progress bar on stderr, the final sync as JSON,
// exit codes for a failed sync and for usage errors.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { skipReasonFor } from "../support/db.js";
import { runCli } from "../support/process.js";
import { type SyncWorld, startSyncWorld } from "./sync-support.js";

describe("leadcheck sync (CLI subprocess)", async () => {
  const skip = await skipReasonFor("sqlite");
  let w: SyncWorld;
  let env: Record<string, string>;
  let sheetsId: string;
  let hubspotId: string;
  let clientEmail: string;

  before(async () => {
    if (skip) return;
    w = await startSyncWorld("sqlite");
    const key = await w.h.apiKey("acct_cli_sync");
    const address = await w.h.app.listen({ port: 0, host: "127.0.0.1" });
    env = { LEADCHECK_URL: address, LEADCHECK_API_KEY: key };
    const account = w.google.newServiceAccount();
    clientEmail = account.client_email;
    sheetsId = (
      await w.h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "S",
        serviceAccount: account,
      })
    ).json().connectionId;
    hubspotId = (
      await w.h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "H",
        accessToken: w.hubspot.newToken(),
      })
    ).json().connectionId;
  });
  after(async () => {
    if (!skip) await w.close();
  });

  /** stdout's JSON: the last top-level object the command printed. */
  const finalJson = (output: string) => JSON.parse(output.slice(output.lastIndexOf("\n{\n") + 1));

  it("syncs a sheet named ID!NAME, draws the progress to the end and prints the completed sync", {
    skip,
  }, async () => {
    const sheet = w.google.addSpreadsheet({
      sheets: {
        "Q3 leads": [
          ["E-Mail", "Firma"],
          ["alice@acme.test", "Acme"],
          ["bob@acme.test", "Acme"],
          ["nobody@acme.test", "Acme"],
        ],
      },
    });
    sheet.sharedWith.add(clientEmail);
    const { code, output } = await runCli(
      ["sync", sheetsId, "--sheet", `${sheet.spreadsheetId}!Q3 leads`, "--poll-ms", "100"],
      env,
    );
    assert.equal(code, 0, output);
    assert.match(output, /^Sync sync_\S+ started$/m);
    const bars = output.split("\n").filter((line) => line.startsWith("["));
    assert.ok(bars.length >= 2, output);
    assert.match(
      bars.at(-1)!,
      /^\[#{30}\] completed\s+\(read 3, new 3, matched 0, written 3, skipped 0, failed 0\)$/,
    );
    const sync = finalJson(output);
    assert.equal(sync.status, "completed");
    assert.equal(sync.counts.validated, 3);
    assert.equal(w.google.sheet(sheet.spreadsheetId, "Q3 leads").rows[1]![2], "valid");
  });

  it("syncs one HubSpot list with --list", { skip }, async () => {
    const a = w.hubspot.addContact({ email: "carol@acme.test" });
    w.hubspot.addContact({ email: "not-in-list@acme.test" });
    w.hubspot.lists.set("42", [a.id]);
    const { code, output } = await runCli(["sync", hubspotId, "--list", "42", "--poll-ms", "100"], env);
    assert.equal(code, 0, output);
    const sync = finalJson(output);
    assert.deepEqual({ read: sync.counts.read, written: sync.counts.written }, { read: 1, written: 1 });
  });

  it("exits 1 with the reason when the sync fails, and 2 on usage errors", { skip }, async () => {
    const gone = await runCli(["sync", hubspotId, "--list", "404", "--poll-ms", "100"], env);
    assert.equal(gone.code, 1, gone.output);
    assert.match(gone.output, /the sync failed: .*not found/);
    const both = await runCli(["sync", hubspotId, "--list", "1", "--sheet", "a!b"], env);
    assert.equal(both.code, 2, both.output);
    assert.match(both.output, /give --list or --sheet, not both/);
    const bad = await runCli(["sync", sheetsId, "--sheet", "no-tab-here"], env);
    assert.equal(bad.code, 2, bad.output);
    assert.match(bad.output, /--sheet takes <spreadsheetId>!<tab name>/);
    const unknown = await runCli(["sync", "con_nope", "--list", "1"], env);
    assert.equal(unknown.code, 1, unknown.output);
    assert.match(unknown.output, /Connection not found.*404/);
  });
});
