// Each kind of page evidence of the parked detector on real saved pages of the corpus
// (test/fixtures/pages, provenance in manifest.tsv), through the committed model.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assessPage, evaluateParked } from "../../../src/checks/website/parked.js";
import { loadLexicon } from "../../../src/checks/website/parked-lexicon.js";
import { loadParkingIndicators } from "../../../src/checks/website/parking-indicators.js";
import { pageInputs, readManifest, readPage } from "../../support/parked-corpus.js";

const indicators = loadParkingIndicators();
const lexicon = loadLexicon();
const pages = readManifest();
const inputsOf = (file: string) => {
  const row = pages.find((p) => p.file === file);
  assert.ok(row, `${file} is in the manifest`);
  return pageInputs(row, readPage(row));
};
const features = (file: string) => assessPage(inputsOf(file), indicators, lexicon).features!;
const verdict = (file: string) => evaluateParked(inputsOf(file), indicators);

describe("parked evidence on real pages", () => {
  it("structure: a parking lander's provider script or frame", () => {
    const f = features("parked/godaddy-lander-quantumaiglobal.html.gz");
    assert.equal(f.values.lander_ref, 1);
    const v = verdict("parked/godaddy-lander-quantumaiglobal.html.gz");
    assert.equal(v.isParked, true);
    assert.equal(v.kind, "parked");
  });

  it("structure: a JS-only page that writes its for-sale text by script", () => {
    const f = features("parked/forsale-andersfylling.html.gz");
    assert.equal(f.values.js_only, 1);
    assert.ok(f.hits.sale, "the script's sentences are read as text");
    assert.equal(verdict("parked/forsale-andersfylling.html.gz").isParked, true);
  });

  it("structure: the domain name itself as the title of an ad lander", () => {
    assert.equal(features("parked/adlander-digimedia-foo-com.html.gz").values.title_is_domain, 1);
    assert.equal(verdict("parked/adlander-digimedia-foo-com.html.gz").isParked, true);
  });

  it("structure: a server default page links its web-server project; a news page has navigation", () => {
    const nginx = features("placeholder/default-nginx.html.gz");
    assert.equal(nginx.values.software_ref, 1);
    const v = verdict("placeholder/default-nginx.html.gz");
    assert.equal(v.isParked, true);
    assert.equal(v.kind, "placeholder");
    const news = features("live/readability-bbc-1.html.gz");
    assert.equal(news.values.navigation, 1);
    assert.ok((news.values.words_log ?? 0) > 0.7);
    assert.equal(verdict("live/readability-bbc-1.html.gz").isParked, false);
  });

  it("wording: hosting defaults, for-sale and parking phrases in Polish, Russian, Chinese and German", () => {
    assert.ok(features("placeholder/ispconfig-standard-pl.html.gz").hits.hosting);
    assert.ok(features("placeholder/apache-testpage-ru.html.gz").hits.hosting);
    assert.ok(features("parked/forsale-hrtechweekly-ru.html.gz").hits.sale);
    const zh = features("parked/parking-baichal-zh.html.gz").hits;
    assert.ok(zh.parking || zh.sale, JSON.stringify(zh));
    assert.ok(features("placeholder/ispconfig-standard-de.html.gz").hits.hosting);
    assert.ok(lexicon.languages >= 30, `${lexicon.languages} languages`);
  });

  it("hard negatives stay live: a brand's 'coming soon' section, a marketplace's own home page", () => {
    for (const file of ["live/coming-soon-laura-janelle.html.gz", "live/hugedomains-home.html.gz"]) {
      const v = verdict(file);
      assert.equal(v.isParked, false, `${file}: ${JSON.stringify(v.evidence.filter((e) => e.weight > 0))}`);
    }
  });

  it("every verdict lists its evidence with a source, and the counted weights add up to the score", () => {
    for (const file of [
      "parked/godaddy-lander-quantumaiglobal.html.gz",
      "placeholder/ispconfig-standard-pl.html.gz",
      "parked/forsale-hrtechweekly-ru.html.gz",
      "live/readability-bbc-1.html.gz",
    ]) {
      const v = verdict(file);
      for (const e of v.evidence) assert.ok(e.source.length > 0 && Number.isInteger(e.weight), file);
      const sum = v.evidence.reduce((s, e) => s + e.weight, 0);
      if (v.score < 100) assert.ok(Math.abs(sum - v.score) <= 3, `${file}: weights ${sum}, score ${v.score}`);
      if (v.isParked) assert.ok(v.evidence.some((e) => e.weight > 0));
    }
  });
});
