// The labelled page corpus (test/fixtures/pages): manifest rows, page bodies, the source group of
// each page (the manifest's `group` column, or its source repository when the column is absent)
// and the corpus hash that a trained model records.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { ParkedInputs } from "../../src/checks/website/parked.js";

const CORPUS_DIR = fileURLToPath(new URL("../fixtures/pages/", import.meta.url));

type CorpusLabel = "parked" | "placeholder" | "live";

export interface CorpusPage {
  file: string;
  label: CorpusLabel;
  /** Finer kind when the manifest has one (registrar-new-domain, hosting-default...), else the label. */
  kind: string;
  /** The independent source the page came from: held out together. */
  group: string;
  source: string;
  note: string;
  host: string;
}

export function readManifest(dir = CORPUS_DIR): CorpusPage[] {
  const lines = readFileSync(`${dir}manifest.tsv`, "utf8").split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  const col = (name: string) => header.indexOf(name);
  const at = (cells: string[], name: string) => (col(name) === -1 ? "" : (cells[col(name)] ?? "").trim());
  const rows: CorpusPage[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const cells = line.split("\t");
    const source = at(cells, "source");
    rows.push({
      file: at(cells, "file"),
      label: at(cells, "label") as CorpusLabel,
      kind: at(cells, "kind") || at(cells, "label"),
      group: at(cells, "group") || groupFromSource(source),
      source,
      note: at(cells, "note"),
      host: at(cells, "host"),
    });
  }
  return rows;
}

/** "github:owner/repo@commit:path" -> "github:owner/repo"; a stored-file id -> that file. */
function groupFromSource(source: string): string {
  const gh = /^github:([^@\s]+)/.exec(source);
  if (gh) return `github:${gh[1]!.toLowerCase()}`;
  const id = /file ids? (\d+)/.exec(source);
  if (id) return `file:${id[1]}`;
  return source.split(/\s/)[0] ?? source;
}

export function readPage(page: CorpusPage, dir = CORPUS_DIR): string {
  return gunzipSync(readFileSync(`${dir}${page.file}`)).toString("utf8");
}

/** sha256 of the manifest and of every page it lists, in manifest order. */
export function corpusHash(dir = CORPUS_DIR): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(`${dir}manifest.tsv`));
  for (const page of readManifest(dir)) {
    hash.update(`\n${page.file}\n`);
    hash.update(readFileSync(`${dir}${page.file}`));
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The page as the engine would see it with no DNS and no redirect: page evidence alone. */
export function pageInputs(page: CorpusPage, body: string): ParkedInputs {
  const host = page.host || "corpus.invalid";
  return {
    host,
    nameServers: [],
    cnames: [],
    addresses: [],
    forSaleTxt: [],
    chain: [`https://${host}/`],
    headers: {},
    body,
  };
}

/** Deterministic pseudo-random numbers (mulberry32) for the evaluation's sample. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
