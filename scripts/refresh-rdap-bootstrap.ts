// Refreshes the vendored IANA RDAP bootstrap file for DNS (src/intel/data/rdap-dns.json).
//   npm run intel:refresh-rdap                  (from https://data.iana.org/rdap/dns.json)
//   npm run intel:refresh-rdap -- <url|file>    (from another copy)
// The download is checked (RFC 9224 shape, at least as many TLDs as a sanity floor) before it
// replaces the snapshot, and the script prints the publication date to record in data/README.md.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseBootstrap, VENDORED_BOOTSTRAP_PATH } from "../src/intel/rdap-bootstrap.js";

const IANA_URL = "https://data.iana.org/rdap/dns.json";
const MIN_TLDS = 500;

async function main(): Promise<void> {
  const source = process.argv[2] ?? IANA_URL;
  const text = /^https?:\/\//.test(source)
    ? await fetch(source, { headers: { accept: "application/json" } }).then((res) => {
        if (!res.ok) throw new Error(`${source}: HTTP ${res.status}`);
        return res.text();
      })
    : readFileSync(source, "utf8");
  const file = parseBootstrap(text);
  const tlds = file.services.reduce((n, [labels]) => n + labels.length, 0);
  if (tlds < MIN_TLDS) throw new Error(`${source} lists only ${tlds} TLDs; refusing to replace the snapshot`);
  const previous = parseBootstrap(readFileSync(VENDORED_BOOTSTRAP_PATH, "utf8"));
  const ordered = {
    description: file.description ?? "RDAP bootstrap file for Domain Name System registrations",
    publication: file.publication,
    services: file.services,
    version: file.version ?? "1.0",
  };
  writeFileSync(VENDORED_BOOTSTRAP_PATH, `${JSON.stringify(ordered, null, 2)}\n`);
  // The repository's formatter owns the layout (npm run check would refuse any other).
  execFileSync("npx", ["biome", "format", "--write", VENDORED_BOOTSTRAP_PATH], { stdio: "ignore" });
  console.log(
    `rdap-dns.json: publication ${previous.publication} -> ${file.publication}, ${file.services.length} services, ${tlds} TLDs (source ${source}); update src/intel/data/README.md`,
  );
}

await main();
