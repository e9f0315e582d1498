// `leadcheck check email|website` and `leadcheck import`: commands for users of a running API
// (hosted or self-hosted), built on the SDK. They never open the database: every rule is the
// API's. `check` prints a readable verdict (or the API's JSON with --json); `import` prints JSON.
// Progress and errors go to stderr.
import { readFile } from "node:fs/promises";
import { type Command, InvalidArgumentError, Option } from "commander";
import { type Batch, LeadcheckClient, LeadcheckError } from "../../sdk/src/index.js";
import { networkLine } from "./network-line.js";
import { type EmailResultLike, formatEmailResult, formatWebsiteResult, paintFor } from "./verdict-format.js";

export interface ConnectionOptions {
  url?: string;
  apiKey?: string;
}

export class UsageError extends Error {}

export function withConnection(command: Command): Command {
  return command
    .addOption(new Option("--url <url>", "base URL of the leadcheck API").env("LEADCHECK_URL"))
    .addOption(new Option("--api-key <key>", "API key (sk_...)").env("LEADCHECK_API_KEY"));
}

export function clientFor(opts: ConnectionOptions): LeadcheckClient {
  if (!opts.url) throw new UsageError("set the API address with --url or LEADCHECK_URL");
  if (!opts.apiKey) throw new UsageError("set an API key with --api-key or LEADCHECK_API_KEY");
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL, got "${opts.url}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--url must be an http(s) URL, got "${opts.url}"`);
  return new LeadcheckClient({ baseUrl: opts.url, apiKey: opts.apiKey });
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function printVerdict(text: string): void {
  process.stdout.write(`${text}\n`);
}

export function positiveInt(name: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return n;
  };
}

/** Runs an action; API and usage errors become one stderr line and an exit code, not a stack. */
export function run<A extends unknown[]>(action: (...args: A) => Promise<number | undefined>) {
  return async (...args: A): Promise<void> => {
    try {
      process.exitCode = (await action(...args)) ?? 0;
    } catch (error) {
      if (error instanceof UsageError) {
        process.stderr.write(`leadcheck: ${error.message}\n`);
        process.exitCode = 2;
      } else if (error instanceof LeadcheckError) {
        process.stderr.write(`leadcheck: ${describeError(error)}\n`);
        process.exitCode = 1;
      } else throw error;
    }
  };
}

function describeError(error: LeadcheckError): string {
  const where = [error.errorCode, error.status ? `HTTP ${error.status}` : "", error.requestId ?? ""];
  const fieldErrors = (error.details.errors as { field: string; message: string }[] | undefined) ?? [];
  const fields = fieldErrors.map((e) => `\n  ${e.field}: ${e.message}`).join("");
  return `${error.message} (${where.filter(Boolean).join(", ")})${fields}`;
}

/** Runs a check while asking the server's network status alongside; when a path is down, one line
 *  on stderr says so after the answer (or the refusal). An older server without GET /v1/status
 *  prints nothing more. */
async function withNetworkNotice<T>(client: LeadcheckClient, check: () => Promise<T>): Promise<T> {
  const status = client.status().catch(() => undefined);
  try {
    return await check();
  } finally {
    const line = networkLine(await status);
    if (line) process.stderr.write(`${line}\n`);
  }
}

/** A one-line progress bar: redrawn in place on a terminal, one line per change otherwise. */
export function renderProgress(batch: Batch, width = 30): string {
  const total = batch.totalLeads;
  const done = batch.completedLeads + batch.failedLeads;
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  const percent = String(Math.floor(ratio * 100)).padStart(3);
  const counts = `valid ${batch.validLeads}, invalid ${batch.invalidLeads}, failed ${batch.failedLeads}`;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${percent}% ${done}/${total} (${counts})`;
}

function progressPrinter(): { update(batch: Batch): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let last = "";
  return {
    update(batch) {
      const line = renderProgress(batch);
      if (line === last) return;
      last = line;
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    },
    end() {
      if (tty && last) process.stderr.write("\n");
    },
  };
}

export function registerClientCommands(program: Command): void {
  const check = program.command("check").description("Check an email address or a website through the API");

  withConnection(
    check
      .command("email")
      .description(
        "Verify an email address by SMTP (no mail is sent); follows the job if the API hands one back",
      )
      .argument("<address>", "email address")
      .option("--timeout <seconds>", "how long the API waits before handing back a job (5-60)", "30")
      .option("--no-wait", "print the job instead of following it when the check is still running")
      .option("--poll-ms <ms>", "interval between job polls", positiveInt("--poll-ms"), 1000)
      .option("--json", "print the API's JSON answer (for scripts) instead of the verdict line"),
  ).action(
    run(
      async (
        address: string,
        opts: ConnectionOptions & { timeout: string; wait: boolean; pollMs: number; json?: boolean },
      ) => {
        const client = clientFor(opts);
        const result = await withNetworkNotice(client, () =>
          client.checkEmail({ email: address, timeout: Number(opts.timeout) }),
        );
        if (result.status !== "processing" || !result.jobId || !opts.wait) {
          if (opts.json) print(result);
          else printVerdict(formatEmailResult(result, paintFor(process.stdout, process.env)));
          return 0;
        }
        process.stderr.write(`Still verifying ${address}; following ${result.jobId}...\n`);
        const job = await client.waitForJob(result.jobId, { intervalMs: opts.pollMs });
        if (opts.json) {
          print(job);
          return 0;
        }
        const finished: EmailResultLike = job.result
          ? { email: address, ...job.result }
          : {
              email: address,
              status: "unknown",
              error: job.error ?? `the verification job ended ${job.status}`,
            };
        printVerdict(formatEmailResult(finished, paintFor(process.stdout, process.env)));
        return 0;
      },
    ),
  );

  withConnection(
    check
      .command("website")
      .description("Check a website: reachability, redirects, TLS, parked domain, response time")
      .argument("<url>", "URL or bare domain")
      .option("--json", "print the API's JSON answer (for scripts) instead of the verdict line"),
  ).action(
    run(async (url: string, opts: ConnectionOptions & { json?: boolean }) => {
      const client = clientFor(opts);
      const result = await withNetworkNotice(client, () => client.checkWebsite(url));
      if (opts.json) print(result);
      else printVerdict(formatWebsiteResult(result, paintFor(process.stdout, process.env)));
      return 0;
    }),
  );

  withConnection(
    program
      .command("import")
      .description("Import leads from a CSV file (header row names the fields) and follow their validation")
      .argument("<file>", "CSV file, or - for standard input")
      .option("--no-validate", "import without validation (and without charge)")
      .option("--no-wait", "return after the upload instead of following the validation batch")
      .option("--poll-ms <ms>", "interval between batch polls", positiveInt("--poll-ms"), 1000),
  ).action(
    run(
      async (
        file: string,
        opts: ConnectionOptions & { validate: boolean; wait: boolean; pollMs: number },
      ) => {
        const client = clientFor(opts);
        const csv = await readCsv(file);
        const imported = await client.leads.importCsv(csv, { validate: opts.validate });
        process.stderr.write(
          `Imported ${imported.created} ${imported.created === 1 ? "lead" : "leads"}${imported.batchId ? `; validating in ${imported.batchId}` : ""}\n`,
        );
        if (!imported.batchId || !opts.wait) {
          print(imported);
          return 0;
        }
        const progress = progressPrinter();
        const batch = await client.waitForBatch(imported.batchId, {
          intervalMs: opts.pollMs,
          onProgress: (b) => progress.update(b),
        });
        progress.end();
        print({ ...imported, status: batch.status, batch });
        return batch.status === "failed" ? 1 : 0;
      },
    ),
  );
}

/** The file's bytes as they are: the server detects the encoding (a Latin-1 file read as UTF-8
 *  here would reach it with its umlauts already lost). */
async function readCsv(file: string): Promise<Buffer> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}
