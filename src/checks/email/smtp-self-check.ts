// Start-up self-checks of the SMTP prober's network and identity:
// - egress: can this host open a connection to port 25 of a public mail host at all (directly, or
//   through the SOCKS proxy)? When it cannot, every probe would fail the same way, so results are
//   unknown with reason egress_blocked rather than a misleading connection failure per address.
// - identity: is SMTP_HELO_NAME a fully qualified name, does it resolve (A) to the egress
//   address, and does that address's PTR name it back? Receivers block or list probers whose
//   HELO, A and PTR disagree (Reacher's default HELO is its most damaging setting).
// It runs at start-up and then each NetworkHealth round (NETWORK_CHECK_INTERVAL_MS, ADR 0020), so
// a fixed firewall is noticed without a restart. The outcome is shown as a detail of /readiness and
// at GET /v1/status; it never makes the service unready (DNS checks still answer).
import { connect, type Socket } from "node:net";
import { parse } from "tldts";
import { type DnsAnswer, type DnsRecordsByType, type DnsRecordType, reverseName } from "../../net/dns.js";
import { type SmtpConnector, smtpConnector } from "../../net/smtp-client.js";

export interface SelfCheckDns {
  resolve<T extends DnsRecordType>(name: string, type: T): Promise<DnsAnswer<DnsRecordsByType[T]>>;
}

export interface SmtpSelfCheckOptions {
  dns: SelfCheckDns;
  heloName: string;
  /** A public MX host name whose port 25 the egress check connects to. */
  probeHost: string;
  port: number;
  socksProxy?: string | undefined;
  /** How the proxied check connects (the engine's connector); built from socksProxy when absent. */
  connectSmtp?: SmtpConnector | undefined;
  timeoutMs: number;
  now?: () => Date;
}

type EgressState = "unchecked" | "ok" | "blocked";

export interface SelfCheckSnapshot {
  egress: EgressState;
  /** Why egress is blocked, or what was reached. */
  egressMessage: string | undefined;
  /** The local address of the egress connection (direct connections only). */
  egressAddress: string | undefined;
  heloName: string;
  heloWarnings: string[];
  checkedAt: string | undefined;
}

export class SmtpSelfCheck {
  private state: SelfCheckSnapshot;

  constructor(private readonly options: SmtpSelfCheckOptions) {
    this.state = {
      egress: "unchecked",
      egressMessage: undefined,
      egressAddress: undefined,
      heloName: options.heloName,
      heloWarnings: [],
      checkedAt: undefined,
    };
  }

  snapshot(): SelfCheckSnapshot {
    return { ...this.state, heloWarnings: [...this.state.heloWarnings] };
  }

  /** true only once a check has found egress blocked; unchecked counts as not blocked. */
  isEgressBlocked(): boolean {
    return this.state.egress === "blocked";
  }

  async run(): Promise<SelfCheckSnapshot> {
    let egress = await this.checkEgress();
    // One failed connection is not yet a firewall: a loaded host or a dropped SYN loses one now
    // and then, and "blocked" turns every mailbox verdict into unknown. Blocked needs two in a row.
    if (egress.ok === false) egress = await this.checkEgress();
    const heloWarnings = await heloIdentityWarnings(this.options.dns, this.options.heloName, egress.address);
    this.state = {
      // No address for the probe host says nothing about port 25 (network health watches DNS):
      // the last finding stands.
      egress: egress.ok === null ? this.state.egress : egress.ok ? "ok" : "blocked",
      egressMessage: egress.message,
      egressAddress: egress.address,
      heloName: this.options.heloName,
      heloWarnings,
      checkedAt: (this.options.now?.() ?? new Date()).toISOString(),
    };
    return this.snapshot();
  }

  /** ok null: the probe host did not resolve, so port 25 was never tried. */
  private async checkEgress(): Promise<{ ok: boolean | null; message: string; address?: string }> {
    const { dns, probeHost, port, socksProxy, timeoutMs } = this.options;
    if (socksProxy) {
      // Through the proxy the target is resolved by the proxy; only its reachability matters here.
      const connectSmtp = this.options.connectSmtp ?? smtpConnector({ socksProxy });
      const conn = await connectSmtp({ host: probeHost, port, connectTimeoutMs: timeoutMs });
      if (!conn.ok)
        return {
          ok: false,
          message: `no connection to ${probeHost}:${port} through the SOCKS proxy: ${conn.failure.message}`,
        };
      conn.value.close();
      return { ok: true, message: `reached ${probeHost}:${port} through the SOCKS proxy` };
    }
    const addresses = await dns.resolve(probeHost, "A");
    if (!addresses.ok) return { ok: null, message: `cannot resolve ${probeHost}: ${addresses.message}` };
    const target = addresses.records[0]!;
    const socket = await tcpConnect(target, port, timeoutMs);
    if (!socket.ok)
      return {
        ok: false,
        message: `no connection to ${probeHost} (${target}) port ${port}: ${socket.message}`,
      };
    const address = socket.socket.localAddress;
    socket.socket.destroy();
    return {
      ok: true,
      message: `reached ${probeHost} (${target}) port ${port}`,
      ...(address ? { address } : {}),
    };
  }
}

/** Warnings about the HELO name: not fully qualified, no A record, A not the egress address, PTR
 *  of the egress address (or of the A addresses when it is unknown) not naming it back. */
export async function heloIdentityWarnings(
  dns: SelfCheckDns,
  heloName: string,
  egressAddress: string | undefined,
): Promise<string[]> {
  const name = heloName.toLowerCase().replace(/\.$/, "");
  const parsed = parse(name);
  if (
    parsed.isIp ||
    parsed.domain === null ||
    !name.includes(".") ||
    /\.(local|localdomain|internal)$/.test(name)
  )
    return [`SMTP_HELO_NAME "${heloName}" is not a fully qualified domain name`];
  const warnings: string[] = [];
  const a = await dns.resolve(name, "A");
  const forward = a.ok ? a.records : [];
  if (forward.length === 0) warnings.push(`SMTP_HELO_NAME "${name}" has no A record`);
  if (egressAddress && forward.length > 0 && !forward.includes(egressAddress))
    warnings.push(
      `the A record of "${name}" (${forward.join(", ")}) is not the egress address ${egressAddress}`,
    );
  const reverseOf = egressAddress ? [egressAddress] : forward;
  for (const address of reverseOf.filter((x) => /^\d+\.\d+\.\d+\.\d+$/.test(x))) {
    const ptr = await dns.resolve(reverseName(address), "PTR");
    const names = ptr.ok ? ptr.records : [];
    if (!names.includes(name))
      warnings.push(
        names.length === 0
          ? `${address} has no PTR record (it should name "${name}")`
          : `the PTR of ${address} is ${names.join(", ")}, not "${name}"`,
      );
  }
  return warnings;
}

function tcpConnect(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ ok: true; socket: Socket } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, message: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve({ ok: true, socket });
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: false, message: err.message });
    });
  });
}
