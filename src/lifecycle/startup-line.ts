// The one line a person starting `leadcheck serve` reads: where the API and the dashboard are.
// Written to stderr so stdout stays one JSON object per line for log collectors; on a terminal
// the log itself is pretty-printed (createLogger).
import type { AddressInfo } from "node:net";

/** "leadcheck listening on http://localhost:8080 — dashboard http://localhost:8080/dashboard/" */
export function listeningLine(address: AddressInfo | string | null, configuredHost: string): string {
  if (address === null || typeof address === "string") return `leadcheck listening on ${address ?? "?"}`;
  const base = `http://${browsableHost(address.address, configuredHost)}:${address.port}`;
  return `leadcheck listening on ${base} — dashboard ${base}/dashboard/`;
}

/** A wildcard bind is reached at localhost; an IPv6 address needs brackets in a URL. */
function browsableHost(bound: string, configuredHost: string): string {
  const host =
    configuredHost && configuredHost !== "0.0.0.0" && configuredHost !== "::" ? configuredHost : bound;
  if (host === "0.0.0.0" || host === "::" || host === "") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}
