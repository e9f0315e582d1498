// The parked detector against the labelled corpus of real saved pages (test/fixtures/pages,
// provenance per row in manifest.tsv). Pages are judged on their HTML alone (no DNS, no redirect
// chain), so the figures are what page evidence earns by itself.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { pageInputs, readManifest, readPage } from "../../../test/support/parked-corpus.js";
import { assessPage, evaluateParked, type ParkedVerdict } from "./parked.js";
import { foldText, loadLexicon, scanLexicon } from "./parked-lexicon.js";
import { loadParkingIndicators } from "./parking-indicators.js";

const DIR = fileURLToPath(new URL("../../../test/fixtures/pages/", import.meta.url));

type Label = "parked" | "placeholder" | "live";
interface Row {
  file: string;
  label: Label;
  source: string;
  note: string;
  /** The host the page was served at, when known: its own links are not evidence. */
  host: string;
}

function manifest(): Row[] {
  const lines = readFileSync(`${DIR}manifest.tsv`, "utf8").trim().split("\n").slice(1);
  return lines.map((line) => {
    const [file = "", label = "", source = "", note = "", host = ""] = line.split("\t");
    return { file, label: label as Label, source, note, host };
  });
}

function judge(row: Row, indicators: ReturnType<typeof loadParkingIndicators>): ParkedVerdict {
  const body = gunzipSync(readFileSync(`${DIR}${row.file}`)).toString("utf8");
  return evaluateParked(
    {
      host: row.host || "corpus.invalid",
      nameServers: [],
      cnames: [],
      addresses: [],
      forSaleTxt: [],
      chain: [`https://${row.host || "corpus.invalid"}/`],
      headers: {},
      body,
    },
    indicators,
  );
}

describe("parked detector on the real-page corpus", () => {
  const rows = manifest();
  const indicators = loadParkingIndicators();

  it("lists every fixture once, with a label and a source", () => {
    const listed = new Set(rows.map((r) => r.file));
    assert.equal(listed.size, rows.length, "a file is listed twice");
    for (const label of ["parked", "placeholder", "live"]) {
      for (const name of readdirSync(`${DIR}${label}`)) {
        assert.ok(listed.has(`${label}/${name}`), `${label}/${name} is not in manifest.tsv`);
      }
    }
    for (const r of rows) {
      assert.ok(["parked", "placeholder", "live"].includes(r.label), `${r.file}: label ${r.label}`);
      assert.ok(r.file.startsWith(`${r.label}/`), `${r.file} is not under its label's folder`);
      assert.ok(r.source.length > 10, `${r.file} has no source`);
    }
    assert.ok(rows.length >= 200, `only ${rows.length} pages`);
  });

  // Recall and false parked are measured leave-one-source-out (test/checks/website/
  // parked-eval.test.ts, npm run eval:parked), never on the pages the model was trained on.

  it("tells placeholders from parked pages on the corpus (kind agrees with the label)", () => {
    const disagreements: string[] = [];
    let judged = 0;
    for (const row of rows.filter((r) => r.label !== "live")) {
      const verdict = judge(row, indicators);
      if (!verdict.isParked) continue;
      judged++;
      if (verdict.kind !== row.label) disagreements.push(`${row.file}: ${verdict.kind}`);
    }
    assert.ok(
      disagreements.length <= Math.floor(judged * 0.1),
      `kind differs from the label on ${disagreements.length} of ${judged}:\n${disagreements.join("\n")}`,
    );
  });

  it("names web-server and panel software on default pages in any language, not on small business pages", () => {
    const lexicon = loadLexicon();
    const pages = new Map(readManifest().map((p) => [p.file, p]));
    const softwareName = (file: string) => {
      const page = pages.get(file);
      assert.ok(page, `${file} is in the manifest`);
      const assessment = assessPage(pageInputs(page, readPage(page)), indicators, lexicon);
      return assessment.features?.values.software_name;
    };
    // Spanish and Greek Apache test pages: the badge image and the product name, no English wording.
    assert.equal(softwareName("placeholder/apache-testpage-es.html.gz"), 1);
    assert.equal(softwareName("placeholder/apache-testpage-el.html.gz"), 1);
    // IIS start page retitled by its owner: the iisstart image is left.
    assert.equal(softwareName("placeholder/iis-default-site-da-malu.html.gz"), 1);
    assert.equal(softwareName("placeholder/default-cherokee-test-page.html.gz"), 1);
    // A hairdresser's Impressum and shop, a law firm's home page: short, but no server software.
    assert.equal(softwareName("live/impressum-friseurmeisterin-de.html.gz"), 0);
    assert.equal(softwareName("live/shop-friseurmeisterin-de.html.gz"), 0);
    assert.equal(softwareName("live/business-adwokat-zygalski-pl.html.gz"), 0);
  });

  it("reads outage and maintenance wording in other languages as a placeholder sign", () => {
    const lexicon = loadLexicon();
    const pages = new Map(readManifest().map((p) => [p.file, p]));
    for (const [file, phrase] of [
      ["placeholder/maintenance-service-unavailable-ru.html.gz", "плановые работы"],
      ["placeholder/maintenance-gov-br-mmfdh.html.gz", "indisponivel para manutencao"],
      ["placeholder/maintenance-das-campaign-offline.html.gz", "planned maintenance"],
    ] as const) {
      const page = pages.get(file);
      assert.ok(page, `${file} is in the manifest`);
      const hits = assessPage(pageInputs(page, readPage(page)), indicators, lexicon).features?.hits;
      assert.ok(hits?.construction?.includes(phrase), `${file}: ${JSON.stringify(hits)}`);
    }
  });
  it("reads traditional Han text with simplified phrases, and phrases with one word inserted (ADR 0091)", () => {
    const lexicon = loadLexicon();
    const pages = new Map(readManifest().map((p) => [p.file, p]));
    const hits = (file: string) => {
      const page = pages.get(file);
      assert.ok(page, `${file} is in the manifest`);
      return assessPage(pageInputs(page, readPage(page)), indicators, lexicon).features?.hits ?? {};
    };
    // Taiwanese 503 page "系統維護" against the lexicon's simplified "系统维护".
    assert.ok(hits("placeholder/maintenance-hahow-zh-tw.html.gz").construction?.includes("系统维护"));
    // "utrzymywana jest na serwerach" against the row "utrzymywana na serwerach".
    assert.ok(
      hits("placeholder/hosting-default-dhosting-pl.html.gz").registered?.includes(
        "utrzymywana na serwerach",
      ),
    );
    // Folding keeps Japanese kana and simplified text as they were.
    assert.equal(foldText("系統維護中"), "系统维护中");
    assert.equal(foldText("メンテナンス中"), "メンテナンス中");
    // One inserted word is allowed, two are not, and two-word phrases stay exact.
    const scan = (text: string) => scanLexicon(foldText(text), lexicon).hits;
    assert.ok(
      scan("Domena jest utrzymywana obecnie na serwerach").registered.includes("utrzymywana na serwerach"),
    );
    assert.ok(!scan("utrzymywana od lat tylko na serwerach").registered.includes("utrzymywana na serwerach"));
  });

  it("sees a frame or script that names the checked domain in its query (a lander filled in per domain)", () => {
    const lexicon = loadLexicon();
    const pages = new Map(readManifest().map((p) => [p.file, p]));
    const feature = (file: string) => {
      const page = pages.get(file);
      assert.ok(page, `${file} is in the manifest`);
      return assessPage(pageInputs(page, readPage(page)), indicators, lexicon).features?.values
        .frame_domain_param;
    };
    // Bluehost's parked page loads its ad feed from another host with ?dn=320press.com.
    assert.equal(feature("parked/ad-lander-bluehost-320press.html.gz"), 1);
    // A loan broker's AdSense blocks and a clinic's analytics name no domain.
    assert.equal(feature("live/business-lokalnefinanse-pl.html.gz"), 0);
    assert.equal(feature("live/business-ess-med-pl.html.gz"), 0);
  });
});
