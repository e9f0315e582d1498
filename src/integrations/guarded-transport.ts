// Outbound transport of the integration clients. Every connection goes through the SSRF guard
// (src/net/guard.ts) unless ALLOW_PRIVATE_TARGETS: the host is resolved and classified, and the
// socket is opened to exactly the address that was checked (no second lookup to rebind). gaxios
// (Google) takes a fetch implementation; @hubspot/api-client (node-fetch) takes an http(s) agent.
import http from "node:http";
import https from "node:https";
import net, { isIP } from "node:net";
import tls from "node:tls";
import { buildConnector, Agent as UndiciAgent, fetch as undiciFetch } from "undici";
import type { DnsResolver } from "../net/dns.js";
import { checkTarget } from "../net/guard.js";

export interface GuardSettings {
  dns: Pick<DnsResolver, "resolveAddresses">;
  allowPrivateTargets: boolean;
}

export class TargetRefused extends Error {
  override name = "TargetRefused";
  /** node-fetch (HubSpot's client) keeps only a socket error's code and message. */
  readonly code = "ERR_TARGET_REFUSED";
}

/** The guard's refusal somewhere in an error's cause chain (clients wrap it once or twice). */
export function refusalIn(error: unknown): TargetRefused | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TargetRefused) return e;
    if ((e as { code?: unknown }).code === "ERR_TARGET_REFUSED")
      return new TargetRefused((e as Error).message);
  }
  return undefined;
}

async function verifiedAddress(host: string, guard: GuardSettings): Promise<string> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const verdict = await checkTarget(bare, { dns: guard.dns, allowPrivateTargets: false });
  if (!verdict.ok) throw new TargetRefused(`refused to connect to ${bare}: ${verdict.message}`);
  return verdict.addresses[0]!;
}

export type FetchImplementation = (input: string | URL, init?: Record<string, unknown>) => Promise<Response>;

/** A fetch for gaxios whose every connection is guarded. */
export function guardedFetch(guard: GuardSettings): FetchImplementation {
  if (guard.allowPrivateTargets) return undiciFetch as unknown as FetchImplementation;
  const connect = buildConnector({});
  const dispatcher = new UndiciAgent({
    connect: (options, callback) => {
      verifiedAddress(options.hostname, guard).then(
        (address) =>
          connect(
            {
              ...options,
              hostname: address,
              servername: options.servername ?? (isIP(options.hostname) ? undefined : options.hostname),
            } as Parameters<typeof connect>[0],
            callback,
          ),
        (error: Error) => callback(error, null),
      );
    },
  });
  return ((input: string | URL, init?: Record<string, unknown>) =>
    undiciFetch(input, { ...(init ?? {}), dispatcher } as never)) as unknown as FetchImplementation;
}

/** An agent for node-fetch whose every connection is guarded; undefined: Node's default agent. */
export function guardedAgent(baseUrl: string, guard: GuardSettings): http.Agent | undefined {
  if (guard.allowPrivateTargets) return undefined;
  const secure = new URL(baseUrl).protocol === "https:";
  const Base = secure ? https.Agent : http.Agent;
  class GuardedAgent extends Base {
    override createConnection(options: Record<string, unknown>, callback?: unknown): undefined {
      const done = callback as (error: Error | null, socket?: net.Socket) => void;
      const host = String(options.host ?? options.hostname ?? "");
      verifiedAddress(host, guard).then(
        (address) => {
          const socket = secure
            ? tls.connect({
                ...(options as tls.ConnectionOptions),
                host: address,
                servername: (options.servername as string | undefined) ?? (isIP(host) ? undefined : host),
              })
            : net.connect({ ...options, host: address } as unknown as net.NetConnectOpts);
          done(null, socket);
        },
        (error: Error) => done(error),
      );
      return undefined;
    }
  }
  return new GuardedAgent({ keepAlive: true });
}
