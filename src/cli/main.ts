// The `leadcheck` command: serve, worker, migrate and the admin commands (decisions §1).
// The service's modules load inside the commands that need them, so that `--help` and the client
// commands (check, import, dashboard link) start without loading the server stack.
import { Command, Option } from "commander";
import { ConfigError, loadConfig } from "../config/config.js";
import { API_VERSION } from "../version.js";
import type { createAdminServices } from "./admin-services.js";
import { registerClientCommands } from "./client-commands.js";
import { registerDashboardCommands } from "./dashboard-command.js";
import { registerSyncCommand } from "./sync-command.js";

/** An admin command stopped before touching a database it should not (exit 2). */
class RefusedError extends Error {}

const CREATE_HELP = "allow a new, empty database (by default a missing or empty one is refused)";

/** Says which database the command uses (stderr: stdout stays JSON) and refuses a new one unless --create. */
async function announceDatabase(command: "admin" | "migrate", create: boolean | undefined): Promise<void> {
  const { inspectDatabase, refusal } = await import("./database-target.js");
  const url = config().databaseUrl;
  const target = await inspectDatabase(url);
  const origin = process.env.DATABASE_URL ? "DATABASE_URL" : `default, from ${process.cwd()}`;
  process.stderr.write(`leadcheck: database ${target.shown} (${origin})\n`);
  const reason = refusal(target, command, create === true);
  if (reason) throw new RefusedError(reason);
}

function config() {
  return loadConfig(process.env);
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

type AdminServices = Awaited<ReturnType<typeof createAdminServices>>;

/** An admin command: opens keys and credits on the configured database (not the whole service
 *  stack: no Redis, DNS, domain intelligence or queue), prints what `work` returns. */
async function printWithServices(work: (services: AdminServices) => Promise<unknown>): Promise<void> {
  const { createAdminServices } = await import("./admin-services.js");
  const services = await createAdminServices(config());
  try {
    print(await work(services));
  } finally {
    await services.close();
  }
}

export function buildCli(): Command {
  const program = new Command("leadcheck")
    .description("Lead and site validation service: email and website checks, leads, credits, webhooks")
    .version(API_VERSION)
    .showHelpAfterError();

  program
    .command("serve")
    .description("Run the HTTP API (migrates first) with an embedded worker unless --no-worker")
    .option("--no-worker", "API only: leave background jobs to `leadcheck worker` processes")
    .addOption(new Option("-p, --port <port>", "listen port (default: PORT or 8080)").argParser(Number))
    .action(async (opts: { worker: boolean; port?: number }) => {
      if (opts.port !== undefined) process.env.PORT = String(opts.port);
      const cfg = config();
      const { exitOnSignals, startServe } = await import("../server.js");
      const running = await startServe(cfg, { worker: opts.worker && cfg.worker.embedded });
      exitOnSignals(running, cfg);
    });

  program
    .command("worker")
    .description("Run background jobs only (batches, email jobs, webhook deliveries, purges)")
    .action(async () => {
      const cfg = config();
      const { exitOnSignals, startWorker } = await import("../server.js");
      exitOnSignals(await startWorker(cfg), cfg);
    });

  program
    .command("migrate")
    .description("Apply pending database migrations and exit")
    .option("--create", CREATE_HELP)
    .action(async (opts: { create?: boolean }) => {
      await announceDatabase("migrate", opts.create);
      const { migrateToLatest, openDatabase } = await import("../storage/db.js");
      // Index builds on a large table may outlast the statement timeout of requests.
      const database = openDatabase(config().databaseUrl, { statementTimeoutMs: 0 });
      try {
        const applied = await migrateToLatest(database.db);
        print({ applied });
      } finally {
        await database.close();
      }
    });

  const keys = program.command("keys").description("Manage API keys");
  keys
    .command("create")
    .description("Create an API key for an account and print it (shown once)")
    .requiredOption("--user <userId>", "account id (the identity token's sub)")
    .requiredOption("--name <name>", "label for the key")
    .option("--description <text>", "optional description")
    .option("--create", CREATE_HELP)
    .action(async (opts: { user: string; name: string; description?: string; create?: boolean }) => {
      await announceDatabase("admin", opts.create);
      await printWithServices(async (services) => {
        await services.credits.ensureAccount(opts.user);
        return services.keys.create(opts.user, opts.name, opts.description ?? null);
      });
    });

  const credits = program.command("credits").description("Manage credits");
  credits
    .command("grant")
    .description("Grant stored credits to an account and print the new balance")
    .requiredOption("--user <userId>", "account id")
    .requiredOption("--credits <amount>", "stored credits, e.g. 1.5 (= 1,500 display credits)")
    .option("--reason <text>", "ledger reason", "CLI grant")
    .option("--create", CREATE_HELP)
    .action(async (opts: { user: string; credits: string; reason: string; create?: boolean }) => {
      const { milliFromStoredCredits } = await import("../credits/credits.service.js");
      const milli = milliFromStoredCredits(Number(opts.credits));
      if (!opts.credits || milli === undefined || milli <= 0) {
        throw new ConfigError(`--credits must be a positive multiple of 0.001, got "${opts.credits}"`);
      }
      await announceDatabase("admin", opts.create);
      await printWithServices((services) => services.credits.grant(opts.user, milli, opts.reason));
    });

  registerClientCommands(program);
  registerSyncCommand(program);
  registerDashboardCommands(program, config);
  return program;
}

try {
  await buildCli().parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError || error instanceof RefusedError) {
    process.stderr.write(`leadcheck: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
