// A real DNS server on loopback (UDP, port 0) answering from a test zone. Names not in the zone
// are NXDOMAIN; a name may instead be told to answer SERVFAIL or to never answer at all, and the
// whole server may be made to lie (NXDOMAIN for every name) or to drop every query (a firewall).
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import dnsPacket, { type Answer, type Packet } from "dns-packet";

interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  MX?: { exchange: string; priority: number }[];
  NS?: string[];
  CNAME?: string;
  TXT?: string[];
  /** Reverse records, on "<reversed ip>.in-addr.arpa" names. */
  PTR?: string[];
  /** Answer every query for this name with this rcode instead of records. */
  rcode?: "SERVFAIL" | "REFUSED";
  /** Never answer queries for this name (the client times out). */
  silent?: boolean;
  ttl?: number;
}

export type Zone = Record<string, ZoneEntry>;

/** normal: answers from the zone; nxdomain: NXDOMAIN for every name; drop: never answers. */
type DnsServerMode = "normal" | "nxdomain" | "drop";

export interface TestDnsServer {
  /** "127.0.0.1:port", ready for DNS_SERVERS. */
  address: string;
  port: number;
  zone: Zone;
  /** Queries received, as "TYPE name". */
  queries: string[];
  set(name: string, entry: ZoneEntry): void;
  setMode(mode: DnsServerMode): void;
  close(): Promise<void>;
}

const norm = (n: string) => n.toLowerCase().replace(/\.$/, "");

export async function startDnsServer(initial: Zone = {}): Promise<TestDnsServer> {
  const zone: Zone = {};
  for (const [k, v] of Object.entries(initial)) zone[norm(k)] = v;
  const queries: string[] = [];
  let mode: DnsServerMode = "normal";
  const socket: Socket = createSocket("udp4");

  socket.on("message", (msg, rinfo) => {
    let query: Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    if (!q) return;
    queries.push(`${q.type} ${norm(q.name)}`);
    const entry = mode === "nxdomain" ? undefined : entryFor(zone, norm(q.name));
    if (entry?.silent || mode === "drop") return;
    const response: Packet = {
      id: query.id,
      type: "response",
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [q],
      answers: [],
    };
    let rcode = "NOERROR";
    if (!entry) rcode = "NXDOMAIN";
    else if (entry.rcode) rcode = entry.rcode;
    else response.answers = answersFor(zone, norm(q.name), q.type, 0);
    (response as Packet & { rcode: string }).rcode = rcode;
    const buf = dnsPacket.encode(response);
    // dns-packet encodes rcode from flags: set the low 4 bits explicitly.
    const codes: Record<string, number> = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 };
    buf.writeUInt16BE((buf.readUInt16BE(2) & 0xfff0) | (codes[rcode] ?? 0), 2);
    socket.send(buf, rinfo.port, rinfo.address);
  });

  socket.bind(0, "127.0.0.1");
  await once(socket, "listening");
  // Bursts of concurrent queries (benchmarks) overflow the default ~208 KiB buffer and turn into 2 s retries.
  socket.setRecvBufferSize(4 * 1024 * 1024);
  const port = socket.address().port;

  return {
    address: `127.0.0.1:${port}`,
    port,
    zone,
    queries,
    set(name, entry) {
      zone[norm(name)] = entry;
    },
    setMode(next) {
      mode = next;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The name's own entry, else a wildcard "*.<parent>" entry (RFC 4592: only where the name has none). */
function entryFor(zone: Zone, name: string): ZoneEntry | undefined {
  const own = zone[name];
  if (own) return own;
  const dot = name.indexOf(".");
  return dot === -1 ? undefined : zone[`*.${name.slice(dot + 1)}`];
}

function answersFor(zone: Zone, name: string, type: string, depth: number): Answer[] {
  const entry = entryFor(zone, name);
  if (!entry || depth > 8) return [];
  const ttl = entry.ttl ?? 300;
  if (entry.CNAME && type !== "CNAME") {
    const target = norm(entry.CNAME);
    return [
      { type: "CNAME", name, ttl, data: target } as Answer,
      ...answersFor(zone, target, type, depth + 1),
    ];
  }
  switch (type) {
    case "A":
      return (entry.A ?? []).map((data) => ({ type: "A", name, ttl, data }) as Answer);
    case "AAAA":
      return (entry.AAAA ?? []).map((data) => ({ type: "AAAA", name, ttl, data }) as Answer);
    case "MX":
      return (entry.MX ?? []).map(
        (mx) =>
          ({ type: "MX", name, ttl, data: { preference: mx.priority, exchange: mx.exchange } }) as Answer,
      );
    case "NS":
      return (entry.NS ?? []).map((data) => ({ type: "NS", name, ttl, data }) as Answer);
    case "CNAME":
      return entry.CNAME ? [{ type: "CNAME", name, ttl, data: norm(entry.CNAME) } as Answer] : [];
    case "TXT":
      return (entry.TXT ?? []).map((data) => ({ type: "TXT", name, ttl, data }) as Answer);
    case "PTR":
      return (entry.PTR ?? []).map((data) => ({ type: "PTR", name, ttl, data }) as Answer);
    default:
      return [];
  }
}
