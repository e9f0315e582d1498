// Starts the real `leadcheck` command as a subprocess, as a user or a process manager would.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/leadcheck.mjs", import.meta.url));

export interface Proc {
  child: ChildProcess;
  output(): string;
  exitCode(): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export function startProcess(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NODE_ENV: "production", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, output: () => out, exitCode: () => exited };
}

/** Runs a CLI command to completion and returns its exit code and output. */
export async function runCli(args: string[], env: Record<string, string>) {
  const p = startProcess(args, env);
  const code = await p.exitCode();
  return { code, output: p.output() };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function waitHealthy(port: number, proc?: Proc): Promise<void> {
  await waitFor(
    async () => {
      if (proc && proc.child.exitCode !== null) throw new Error(`process exited: ${proc.output()}`);
      const res = await fetch(`http://127.0.0.1:${port}/readiness`);
      return res.ok ? true : undefined;
      // A loaded machine (CI shares its cores) can take tens of seconds to start the service.
    },
    `readiness on :${port}`,
    90_000,
  );
}
