// `leadcheck sync <connectionId> [--list ID | --sheet ID!NAME]`: starts a sync through the API
// (the SDK; no database) and follows it with a progress bar on stderr: the rows read while it
// imports, the validation batch's progress, the verdicts written back. The final sync is printed
// as JSON on stdout; the exit code is 1 when it failed.
import type { Command } from "commander";
import type { Batch, LeadcheckClient, Sync, SyncCreateInput } from "../../sdk/src/index.js";
import {
  type ConnectionOptions,
  clientFor,
  positiveInt,
  print,
  run,
  UsageError,
  withConnection,
} from "./client-commands.js";

interface SyncOptions extends ConnectionOptions {
  list?: string;
  sheet?: string;
  validate: boolean;
  writeBack: boolean;
  wait: boolean;
  pollMs: number;
}

/** The sync body from the options: `--sheet <spreadsheetId>!<tab>` or `--list <id>` (or neither). */
function syncInput(
  opts: Pick<SyncOptions, "list" | "sheet" | "validate" | "writeBack">,
): SyncCreateInput {
  if (opts.list && opts.sheet) throw new UsageError("give --list or --sheet, not both");
  const body: SyncCreateInput = { validate: opts.validate, writeBack: opts.validate && opts.writeBack };
  if (opts.list) return { ...body, listId: opts.list };
  if (opts.sheet) {
    const bang = opts.sheet.indexOf("!");
    const spreadsheetId = bang < 0 ? "" : opts.sheet.slice(0, bang);
    const sheet = bang < 0 ? "" : opts.sheet.slice(bang + 1);
    if (!spreadsheetId || !sheet)
      throw new UsageError(`--sheet takes <spreadsheetId>!<tab name>, got "${opts.sheet}"`);
    return { ...body, spreadsheetId, sheet };
  }
  return body;
}

const PHASES: Record<string, string> = {
  import: "reading",
  validate: "validating",
  wait: "validating",
  write: "writing back",
  done: "done",
};

/** One progress line: the phase, a bar for the batch while it validates, and the counts. */
function renderSyncProgress(sync: Sync, batch: Batch | null, width = 30): string {
  const c = sync.counts;
  const done = batch ? batch.completedLeads + batch.failedLeads : sync.status === "running" ? 0 : 1;
  const total = batch ? batch.totalLeads : 1;
  const ratio = sync.status !== "running" ? 1 : total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(ratio * width);
  const phase = sync.status === "running" ? (PHASES[sync.phase] ?? sync.phase) : sync.status;
  const validating = batch && sync.status === "running" ? ` ${done}/${total} validated` : "";
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${phase.padEnd(12)}${validating} (read ${c.read}, new ${c.created}, matched ${c.matched}, written ${c.written}, skipped ${c.skipped}, failed ${c.failed})`;
}

async function follow(client: LeadcheckClient, first: Sync, pollMs: number): Promise<Sync> {
  const tty = process.stderr.isTTY === true;
  let last = "";
  let sync = first;
  for (;;) {
    const batch = sync.batchId && sync.status === "running" ? await client.batches.get(sync.batchId) : null;
    const line = renderSyncProgress(sync, batch);
    if (line !== last) process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    last = line;
    if (sync.status !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    sync = await client.connections.getSync(sync.syncId);
  }
  if (tty) process.stderr.write("\n");
  return sync;
}

export function registerSyncCommand(program: Command): void {
  withConnection(
    program
      .command("sync")
      .description(
        "Sync a Google Sheet or HubSpot contacts into leads, validate them and write the verdicts back",
      )
      .argument("<connectionId>", "the connection (con_...)")
      .option("--list <id>", "HubSpot: only this list's contacts (default: every contact)")
      .option("--sheet <id!name>", "Google Sheets: <spreadsheetId>!<tab name>")
      .option("--no-validate", "import without validation (and without charge)")
      .option("--no-write-back", "validate but write nothing back to the source")
      .option("--no-wait", "print the started sync instead of following it")
      .option("--poll-ms <ms>", "interval between polls", positiveInt("--poll-ms"), 1000),
  ).action(
    run(async (connectionId: string, opts: SyncOptions) => {
      const input = syncInput(opts);
      const client = clientFor(opts);
      const started = await client.connections.startSync(connectionId, input);
      process.stderr.write(`Sync ${started.syncId} started\n`);
      if (!opts.wait) {
        print(started);
        return 0;
      }
      const sync = await follow(client, started, opts.pollMs);
      if (sync.failureReason) process.stderr.write(`leadcheck: the sync failed: ${sync.failureReason}\n`);
      print(sync);
      return sync.status === "failed" ? 1 : 0;
    }),
  );
}
