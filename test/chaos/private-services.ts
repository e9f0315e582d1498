// A PostgreSQL server and a Redis of the chaos run's own, on free ports, in a temporary
// directory, so restarting them never touches the machine's shared instances (other tests use
// those). Created and removed by the run itself, so CI's root shell can run it: as root the
// PostgreSQL binaries run as the `postgres` user (initdb refuses root).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../support/process.js";

const run = promisify(execFile);

export interface PrivatePostgres {
  port: number;
  /** Superuser URL of the `postgres` database (trust authentication on 127.0.0.1). */
  adminUrl: string;
  /** Fast shutdown: running transactions are aborted and every connection is closed. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops (immediately) and deletes the cluster and its directory. */
  remove(): Promise<void>;
  log(): string;
}

export interface PrivateRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/** Binaries of the newest PostgreSQL installed the Debian way, else whatever is on PATH. */
function postgresBin(name: string): string {
  const explicit = process.env.CHAOS_PG_BIN;
  if (explicit) return join(explicit, name);
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", name)))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin", name);
  }
  return name;
}

const isRoot = () => process.getuid?.() === 0;

/** As root, runs the command as `postgres` (runuser); otherwise as the current user. */
async function asOwner(command: string, args: string[]): Promise<string> {
  const [file, argv] = isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const { stdout, stderr } = await run(file, argv, { timeout: 120_000 });
  return stdout + stderr;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-chaos-pg-"));
  if (isRoot()) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  const port = await freePort();
  const user = isRoot() ? "postgres" : userInfo().username;
  await asOwner(postgresBin("initdb"), [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]).catch((error: Error) => {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (as ${user}): ${error.message}`);
  });
  // A throwaway cluster: durability off, enough connections for 4 processes and their restarts.
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-k ${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=300",
    "-c shared_buffers=64MB",
  ].join(" ");
  const pgCtl = postgresBin("pg_ctl");
  const start = async () => {
    await asOwner(pgCtl, ["-D", data, "-l", logFile, "-w", "-t", "60", "-o", options, "start"]);
  };
  const stop = async (mode: "fast" | "immediate") => {
    await asOwner(pgCtl, ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  };
  await start();
  return {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => stop("fast"),
    start,
    async remove() {
      await stop("immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    log() {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
  };
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-chaos-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    let out = "";
    const ready = new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        out += d;
        if (out.includes("Ready to accept connections")) resolve();
      };
      proc.stdout?.on("data", onData);
      proc.stderr?.on("data", onData);
      proc.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
    await ready;
  };
  const stop = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = once(proc, "exit");
    proc.kill("SIGTERM");
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async remove() {
      const proc = child;
      if (proc && proc.exitCode === null) {
        const exited = once(proc, "exit");
        proc.kill("SIGKILL");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
