// Helpers for the job queue tests: hold a handler until the test lets go, hanging workers.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export function createGate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let counter = 0;
/** A queue name of its own for every test, so tests on one database do not see each other's jobs. */
export function uniqueQueueName(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${counter}`;
}

const HANGING_WORKER = fileURLToPath(new URL("./fixtures/hanging-worker.ts", import.meta.url));

/** Starts a worker process whose handler never returns; resolves once it has started a job. */
export async function startHangingWorker(
  databaseUrl: string,
  queue: string,
  expireInMs: number,
): Promise<{ child: ChildProcess; jobId: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", HANGING_WORKER, databaseUrl, queue, String(expireInMs)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const jobId = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /started (\S+)\n/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`hanging worker exited early with code ${code}`)));
  });
  return { child, jobId };
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
