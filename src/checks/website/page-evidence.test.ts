import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsRedirects, refreshTarget, scanHtml } from "./html-scan.js";
import { evaluateParked, type ParkedInputs } from "./parked.js";
import { loadLexicon } from "./parked-lexicon.js";
import { loadParkingIndicators } from "./parking-indicators.js";

const indicators = loadParkingIndicators();
// These cases pin the hand-written rules (model null); the combined detector is tested on real
// pages in parked-evidence.test.ts and measured leave-one-source-out by eval:parked.
const RULES = { model: null, lexicon: loadLexicon() };
const judge = (body: string, over: Partial<ParkedInputs> = {}) =>
  evaluateParked(
    {
      host: "shop.example",
      nameServers: [],
      cnames: [],
      addresses: [],
      forSaleTxt: [],
      chain: ["https://shop.example/"],
      headers: {},
      body,
      ...over,
    },
    indicators,
    RULES,
  );
const signals = (body: string, over: Partial<ParkedInputs> = {}) =>
  [...new Set(judge(body, over).evidence.map((e) => e.signal))].sort();
const longText = (words: number) => `<p>${Array.from({ length: words }, (_, i) => `word${i}`).join(" ")}</p>`;

describe("scanHtml", () => {
  it("reads title, visible text and the URLs elements load, skipping comments and script bodies", () => {
    const facts = scanHtml(
      `<!doctype html><html lang="de"><head><title>Caf&eacute; &amp; Bar</title>
      <script>if (a < b) { document.write("<a href='https://nope.example/'>x</a>") }</script>
      <style>p{color:red}</style></head><body><!-- <a href="https://hidden.example/">h</a> -->
      <h1>Hello</h1><p>World&nbsp;!</p><a href=https://a.example/x>link</a>
      <iframe src='//frame.example/f'></iframe><form action="https://form.example/go"></form>
      <img src="/logo.png"><script src="https://cdn.example/app.js"></script></body></html>`,
    );
    assert.equal(facts.title, "Café & Bar");
    assert.equal(facts.lang, "de");
    assert.equal(facts.text, "Hello World ! link");
    assert.equal(facts.wordCount, 4);
    assert.deepEqual(
      facts.refs.map((r) => `${r.element} ${r.url}`),
      [
        "a https://a.example/x",
        "iframe //frame.example/f",
        "form https://form.example/go",
        "img /logo.png",
        "script https://cdn.example/app.js",
      ],
    );
  });

  it("finds meta refresh and JavaScript redirect targets", () => {
    assert.equal(refreshTarget("0;url=https://x.example/"), "https://x.example/");
    assert.equal(refreshTarget("5; URL='/lander'"), "/lander");
    assert.equal(refreshTarget("30"), null);
    assert.deepEqual(
      jsRedirects(
        `window.location.href="/lander"; top.location = 'https://a.example/'; location.replace("https://b.example/")`,
      ),
      ["/lander", "https://a.example/", "https://b.example/"],
    );
    const facts = scanHtml('<meta http-equiv="Refresh" content="0; url=https://sedoparking.com/x">');
    assert.deepEqual(facts.refs, [{ element: "refresh", url: "https://sedoparking.com/x" }]);
  });

  it("never throws on broken markup", () => {
    for (const html of ["<", "<a href='x", "<!--", "<script>never closed", "</>", "<<<>>>", "<p a=>b</p>"]) {
      assert.doesNotThrow(() => scanHtml(html));
    }
  });
});

describe("parked page evidence", () => {
  it("calls the issue's for-sale page parked: wording, Sedo and Dan links and a ParkingCrew script", () => {
    const page = `<html><head><title>example.com</title></head><body>
      <h1>This domain is for sale</h1>
      <a href="https://sedo.com/search/details/?domain=example.com&origin=parking">Buy on Sedo</a>
      <a href="https://dan.com/buy-domain/example.com">Buy on Dan</a>
      <script src="https://www.parkingcrew.net/js/lander.js"></script></body></html>`;
    const verdict = judge(page);
    assert.equal(verdict.isParked, true);
    assert.equal(verdict.kind, "parked");
    assert.deepEqual(signals(page), ["link", "page", "script", "text", "thin_page"]);
  });

  it("counts each kind of structure: script, iframe, form, meta refresh and JavaScript redirect", () => {
    assert.ok(judge('<script src="https://parking.bodiscdn.com/js/inquiry.js"></script>').isParked);
    assert.ok(judge('<iframe src="https://www.afternic.com/forsale/shop.example"></iframe>').isParked);
    assert.ok(judge('<form action="https://sedo.com/checkdomainoffer.php"></form>').isParked);
    assert.ok(
      judge(
        '<meta http-equiv="refresh" content="0;url=https://www.hugedomains.com/domain_profile.cfm?d=shop">',
      ).isParked,
    );
    assert.ok(
      judge('<script>window.location.replace("https://dan.com/buy-domain/shop.example")</script>').isParked,
    );
  });

  it("ignores a plain anchor to a marketplace home page and the checked host's own links", () => {
    const shop = `${longText(300)}<a href="https://www.godaddy.com/">Hosted by GoDaddy</a>
      <a href="https://sedo.com/">Our domain broker</a><a href="https://shop.example/buy-domain/x">Buy</a>`;
    const verdict = judge(shop);
    assert.equal(verdict.isParked, false);
    assert.deepEqual(
      verdict.evidence.filter((e) => e.signal !== "page"),
      [],
      "no link evidence: home pages and the site's own paths",
    );
  });

  it("does not hold a marketplace's own markers against its own site (registrable domain, tldts)", () => {
    const home = `<title>HugeDomains.com - Shop for over 350,000 Premium Domains</title>
      <script src="//static.hugedomains.com/js/common.js"></script>${longText(200)}
      <a href="//www.hugedomains.com/domain_profile.cfm?d=AaaFarm&e=com">AaaFarm.com</a> <a href="/cart">Buy Now</a>`;
    const own = judge(home, { host: "www.hugedomains.com", chain: ["https://www.hugedomains.com/"] });
    assert.equal(own.isParked, false, JSON.stringify(own.evidence));
    assert.ok(!own.evidence.some((e) => e.signal === "script" || e.signal === "link"));
    assert.ok(judge(home).isParked, "the same markers on another site are evidence");
  });

  it("reads for-sale wording in major European languages", () => {
    for (const sentence of [
      "Diese Domain steht zum Verkauf.",
      "Ce nom de domaine est à vendre.",
      "Este dominio está en venta.",
      "Ta domena jest na sprzedaż.",
      "Questo dominio è in vendita.",
      "Dit domein is te koop.",
      "This domain may be for sale.",
    ]) {
      const verdict = judge(`<h1>${sentence}</h1><p>Kontakt: owner@mail.example</p>`);
      assert.equal(verdict.isParked, true, sentence);
      assert.equal(verdict.kind, "parked", sentence);
    }
  });

  it("reads registrar and hoster holding pages as placeholders", () => {
    for (const page of [
      "<title>Welcome to nginx!</title><h1>Welcome to nginx!</h1>",
      "<h1>It works!</h1>",
      "<p>Upload your website into the public_html directory.</p>",
      "<p>Hier entsteht eine neue Internetpräsenz.</p>",
      "<title>Coming Soon</title><h1>We're working on it</h1>",
      "<p>Future home of something quite cool.</p>",
    ]) {
      const verdict = judge(page);
      assert.equal(verdict.isParked, true, page);
      assert.equal(verdict.kind, "placeholder", page);
    }
  });

  it("keeps a shop with buy buttons and a long article mentioning a domain sale live", () => {
    const shop = `<title>Acme Shoes</title>${longText(400)}<button>Buy now</button><a href="/cart">Add to cart</a>
      <p>Make an offer on our outlet items. Coming soon: winter collection.</p>`;
    assert.equal(judge(shop).isParked, false);
    const article = `<title>How we bought our name</title>${longText(700)}
      <p>The seller told us the domain is for sale, so we made an offer via escrow.</p>`;
    const verdict = judge(article);
    assert.equal(verdict.isParked, false, JSON.stringify(verdict.evidence));
  });

  it("takes a second page at a random path as corroboration only when the page already looks parked", () => {
    const weak = "<p>This domain is reserved.</p>" + longText(80);
    assert.equal(judge(weak).isParked, false);
    assert.equal(judge(weak, { samePageAtRandomPath: true }).isParked, true);
    assert.equal(judge(longText(80), { samePageAtRandomPath: true }).score, 0);
    assert.equal(judge(weak, { samePageAtRandomPath: false }).isParked, false);
  });
});
