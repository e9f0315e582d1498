// Reachability of the machine's PostgreSQL and Redis. With CI=true a test that needs one of them
// fails when it is down; elsewhere it is skipped with a visible notice.
import net from "node:net";

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A loaded CI machine can stall the event loop for seconds: try a few times, patiently. */
async function reachable(host: string, port: number): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await connectOnce(host, port)) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}

function connectOnce(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(5000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const cache = new Map<string, Promise<boolean>>();

async function need(name: string, url: string): Promise<string | false> {
  const { hostname, port } = new URL(url);
  const key = `${hostname}:${port}`;
  if (!cache.has(key)) cache.set(key, reachable(hostname, Number(port)));
  if (await cache.get(key)) return false;
  const message = `${name} at ${key} is not reachable`;
  if (process.env.CI === "true") throw new Error(`${message} (CI=true: failing instead of skipping)`);
  console.warn(`NOTICE: ${message}; skipping the tests that need it`);
  return message;
}

/** Resolves to a skip reason (string) or false when PostgreSQL is up; throws in CI when down. */
export const postgresSkipReason = () => need("PostgreSQL", PG_ADMIN_URL);
export const redisSkipReason = () => need("Redis", REDIS_TEST_URL);
