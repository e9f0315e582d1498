// The kind-of-page features (ADR 0092) on real saved pages of the corpus (test/fixtures/pages,
// provenance in manifest.tsv): each fires on a page of its kind and stays silent on live pages.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pageInputs, readManifest, readPage } from "../../../test/support/parked-corpus.js";
import { scanHtml } from "./html-scan.js";
import { assessPage, evaluateParked, PARKED_THRESHOLD, RANDOM_PATH_WEIGHT } from "./parked.js";
import { foldText, loadLexicon, scanLexicon } from "./parked-lexicon.js";
import { isPanelUrl } from "./parked-page-kind.js";
import { loadParkingIndicators } from "./parking-indicators.js";

const indicators = loadParkingIndicators();
const lexicon = loadLexicon();
const pages = readManifest();

/** Lexicon hits of a piece of text, folded as page text is. */
const scan = (text: string) => scanLexicon(foldText(text), lexicon).hits;

function pageOf(file: string) {
  const page = pages.find((p) => p.file === file);
  assert.ok(page, `${file} is in the manifest`);
  return page;
}

function features(file: string) {
  const page = pageOf(file);
  const assessment = assessPage(pageInputs(page, readPage(page)), indicators, lexicon);
  assert.ok(assessment.features);
  return assessment.features;
}

/** The shipped detector's verdict on a corpus page, from its page evidence alone. */
function verdictOf(file: string) {
  const page = pageOf(file);
  return evaluateParked(pageInputs(page, readPage(page)), indicators);
}

describe("kind-of-page features on real pages", () => {
  it("reads a host's stand-in page as the host's: links only to the host, the title names it", () => {
    const f = features("placeholder/hosting-default-cloudtec-dekreij-pl.html.gz");
    assert.equal(f.values.vendor_links, 1);
    assert.equal(f.found.vendor_links, "cloudtec.pl");
    assert.equal(f.values.title_names_link, 1);
  });

  it("does not read links to the site's own pages on its platform as a vendor's (ADR 0094)", () => {
    // bdsm.sf.net links only to sourceforge.net/projects/bdsm/ and sourceforge.net itself.
    const project = features("live/other-project-page-bowling-stats.html.gz");
    assert.equal(project.values.vendor_links, 0);
    assert.equal(project.found.vendor_links, undefined);
    // A platform's own page links the platform without naming the site: still the vendor's.
    const atlassian = features("placeholder/hosting-default-atlassian-jira-deactivated.html.gz");
    assert.equal(atlassian.values.vendor_links, 1);
    assert.equal(atlassian.found.vendor_links, "atlassian.com");
  });

  it("reads a form's acknowledgement as counter-evidence, never as a parking category (ADR 0094)", () => {
    // 'Köszönjük a megkeresést ... hamarosan': thin, and "soon" in Hungarian, but a reply to a form.
    const thanks = features("live/other-buki-automentes-koszonjuk-hu.html.gz");
    assert.ok((thanks.hits.reply ?? []).length > 0);
    assert.ok((thanks.values.lex_reply_short ?? 0) > 0);
    // The reply does not count among the page's parking and placeholder categories.
    assert.equal(thanks.values.lex_categories, (1 / 3) * Math.min(1, 200 / 18));
    const verdict = verdictOf("live/other-buki-automentes-koszonjuk-hu.html.gz");
    assert.equal(verdict.isParked, false);
    assert.ok(!verdict.evidence.some((e) => e.weight > 0 && /reply/.test(e.value)));
  });

  it("reads 'soon' inside a form's reply as the reply's, not as a holding notice (ADR 0095)", () => {
    // 'Recebemos seu pedido de orçamento. Em breve entraremos em contato via WhatsApp.'
    const thanks = features("live/other-fretes-piqueri-obrigado-pt.html.gz");
    assert.ok((thanks.hits.reply ?? []).includes("entraremos em contato"));
    assert.equal(thanks.hits.construction, undefined);
    assert.deepEqual(scan("Obrigado! Em breve entraremos em contato.").construction, []);
    assert.deepEqual(scan("Wij nemen binnenkort contact met u op").construction, []);
    // "Soon" in a sentence of its own still counts, beside a reply or not.
    assert.deepEqual(scan("Site em breve. Entraremos em contato.").construction, ["em breve"]);
    assert.ok(scan("Binnenkort online").construction.includes("binnenkort"));
  });

  it("reads a forwarding notice as counter-evidence, never as a parking category (ADR 0095)", () => {
    const moved = features("live/other-18th-century-philadelphia-moved-en.html.gz");
    assert.deepEqual(moved.hits.moved, [
      "has moved here",
      "please update your bookmark",
      "update your bookmarks",
    ]);
    assert.equal(moved.values.lex_categories, 0);
    // cPanel's default page says the site "may have moved to a different server": not a notice.
    const cpanel = features("placeholder/cpanel-default-web-site-page.html.gz");
    assert.equal(cpanel.hits.moved, undefined);
    // "Our new website is coming soon" is a holding page's wording, not a forwarding notice.
    assert.deepEqual(scan("Unsere neue Website kommt bald").moved, []);
    assert.deepEqual(scan("Wir sind umgezogen! Unsere neue Adresse: example.de").moved, [
      "wir sind umgezogen",
      "unsere neue adresse",
    ]);
  });

  it("reads Slovak outage wording written with or without diacritics (ADR 0095)", () => {
    for (const text of [
      "Stránka je dočasne nedostupná kvôli údržbe",
      "Stranka je docasne nedostupna kvoli udrzbe",
    ])
      assert.ok(
        scan(text).construction.includes("docasne nedostupn") &&
          scan(text).construction.includes("kvoli udrzbe"),
        text,
      );
    assert.equal(verdictOf("placeholder/under-construction-2mind-prepacte-sk.html.gz").isParked, true);
  });

  it("sees an application's components and a menu slot that a script fills (ADR 0095)", () => {
    // A cinema's Vue page: <barratop> and <barrasotto> are the navbar and footer components.
    assert.equal(features("live/other-cinema-marco-polo-prossimamente-it.html.gz").values.components, 1);
    assert.equal(features("live/spa-shell-dedeco-pl.html.gz").values.components, 1);
    // Plain HTML, SVG and obsolete elements (center, font) are not components.
    assert.equal(features("placeholder/under-construction-alma-finanza-it.html.gz").values.components, 0);
    assert.equal(scanHtml('<div id="navbar-container"></div><p>Proximamente</p>').navSlots, 1);
    assert.equal(scanHtml('<div id="navbar-container"><a href="/">Home</a></div>').navSlots, 0);
    assert.equal(scanHtml('<div class="menu"></div><div id="content"></div>').navSlots, 0);
    // A print shop's section page whose navbar and footer are injected: navigation, not a bare page.
    assert.equal(
      features("live/coming-soon-business-grafipack-proximamente-es.html.gz").values.navigation,
      1,
    );
  });

  it("reads a header slot and an empty nav as navigation, a nav without links as none (ADR 0096)", () => {
    const slot = (html: string) => {
      const facts = scanHtml(html);
      return [facts.navSlots, facts.navSlot];
    };
    assert.deepEqual(slot("<custom-header></custom-header><h1>En construction</h1>"), [1, "<custom-header>"]);
    assert.deepEqual(slot('<div id="site-header">\n</div>'), [1, "#site-header"]);
    assert.deepEqual(slot("<nav></nav><p>Soon</p>"), [1, "<nav>"]);
    // A filled header, a plain header element and an element that is not custom are not slots.
    assert.deepEqual(slot("<custom-header><a href='/'>Home</a></custom-header>"), [0, ""]);
    assert.deepEqual(slot("<header></header><p>x</p>"), [0, ""]);
    assert.equal(
      scanHtml('<nav><a href="/">Home</a> <span><a href="/shop">Shop</a></span></nav>').navLinks,
      2,
    );
    // A farm's holding page whose <nav> holds only its logo: no navigation, found as a placeholder.
    const farm = features("placeholder/under-construction-azienda-agricola-margoni-it.html.gz");
    assert.equal(farm.values.navigation, 0);
    // A music shop's section page whose header and footer are web components a script renders.
    const shop = features("live/coming-soon-business-rueil-musique-fr.html.gz");
    assert.equal(shop.values.navigation, 1);
    assert.equal(shop.found.nav_slot, "<custom-header>");
  });

  it("leaves generic wording under a script-filled menu or in an app's template, and a forwarding notice, undecided (ADR 0096)", () => {
    for (const file of [
      // "Próximamente" under an injected navbar; "En cours de construction" under <custom-header>.
      "live/coming-soon-business-grafipack-proximamente-es.html.gz",
      "live/coming-soon-business-rueil-musique-fr.html.gz",
      // "Prossimamente" in a cinema's Vue template: <barratop> and <barrasotto> render menu and footer.
      "live/other-cinema-marco-polo-prossimamente-it.html.gz",
      // One link and "we have moved", nothing of sale, parking or a host.
      "live/other-namecheap-moved-web-hosting-com.html.gz",
      "live/other-ninkynonk-we-have-moved-en.html.gz",
    ]) {
      const v = verdictOf(file);
      assert.equal(v.isParked, false, file);
      // Below the random-path probe's reach: a catch-all site that serves the notice everywhere stays live.
      assert.ok(v.score < PARKED_THRESHOLD - RANDOM_PATH_WEIGHT, `${file}: ${v.score}`);
    }
    // A slot does not hide a provider's page or specific wording: a for-sale lander with a menu slot.
    assert.equal(verdictOf("parked/forsale-hrtechweekly.html.gz").isParked, true);
  });

  it("reads Catalan and Norwegian holding wording, and a title written as a slug (ADR 0096)", () => {
    assert.ok(
      scan("Estem fent manteniment. Disculpeu les molèsties").construction.includes("estem fent manteniment"),
    );
    assert.ok(scan("Aquest domini està en venda").sale.includes("aquest domini esta en venda"));
    assert.ok(scan("Nettsiden er under utvikling").construction.includes("under utvikling"));
    // A Webflow page titled "under-utvikling1" whose only sentence is a metaphor.
    const slug = features("placeholder/under-construction-dietrichs-marketing-no.html.gz");
    assert.ok((slug.values.lex_construction_title ?? 0) > 0);
    assert.equal(
      verdictOf("placeholder/under-construction-casa-cultura-manteniment-ca.html.gz").isParked,
      true,
    );
  });

  it("reads the same name under another suffix as the site's own, only for a site at its registrable domain", () => {
    // railshost.pl links only to railshost.com: the same owner's site.
    const sameName = features("live/registrar-home-railshost-pl.html.gz");
    assert.equal(sameName.values.vendor_links, 0);
    // anborn.planethoster.net links to planethoster.com: the platform's page for a customer, whose
    // title names the platform's site.
    const platform = features("placeholder/hosting-default-planethoster-hosting-active-fr.html.gz");
    assert.equal(platform.values.title_names_link, 1);
    assert.equal(platform.found.title_names_link, "planethoster.com");
  });

  it("counts distinct dated entries, which holding and parked pages lack (ADR 0094)", () => {
    // Two news items dated 2006-4-30 and 2006-04-24.
    const news = features("live/other-project-page-bowling-stats.html.gz");
    assert.equal(news.values.dates_log, Math.log1p(2) / Math.log1p(10));
    const holding = features("placeholder/under-construction-alma-finanza-it.html.gz");
    assert.equal(holding.values.dates_log, 0);
  });

  it("leaves generic placeholder wording to the model on a page with navigation (ADR 0094)", () => {
    // A Thai home page: one heading, a menu, a footer, and a language menu whose options say "coming soon".
    const page = pageOf("live/business-kp-auto-parts-japan-th.html.gz");
    const inputs = pageInputs(page, readPage(page));
    const assessment = assessPage(inputs, indicators, lexicon);
    assert.ok(assessment.rulesPageScore >= 60, "the rules alone would call it parked");
    assert.equal(assessment.features?.values.navigation, 1);
    const verdict = evaluateParked(inputs, indicators);
    assert.equal(verdict.isParked, false);
    assert.ok(verdict.evidence.filter((e) => e.signal === "text").every((e) => e.weight === 0));
  });

  it("counts the distinct other pages of the site that the links lead to", () => {
    // A menu of seven items that all lead to this page (pripravujeme.html) and home.
    const dead = features("placeholder/under-construction-startovaci-hub-cs.html.gz");
    assert.ok((dead.values.internal_links_log ?? 0) > 0);
    assert.ok((dead.values.own_pages_log ?? 0) <= Math.log1p(1) / Math.log1p(50) + 1e-9);
    const site = features("live/business-penzion-cyril-cs.html.gz");
    assert.ok((site.values.own_pages_log ?? 0) >= Math.log1p(4) / Math.log1p(50));
  });

  it("finds a web-root path in a server's default page (Caddy: /var/www)", () => {
    const f = features("placeholder/default-caddy.html.gz");
    assert.equal(f.values.install_path, 1);
    assert.match(f.found.install_path ?? "", /\/var\/www/);
  });

  it("finds a control-panel link (phpMyAdmin) and counts three default-page signs on XAMPP's dashboard", () => {
    const f = features("placeholder/server-default-xampp-dashboard-es-721.html.gz");
    assert.equal(f.values.panel_link, 1);
    assert.equal(f.values.title_welcome, 1);
    assert.equal(f.values.default_page_signs, 1);
    assert.match(f.found.default_page_signs ?? "", /control-panel link/);
  });

  it("reads an image-only holding page from its file name", () => {
    const f = features("placeholder/under-construction-accutest.html.gz");
    assert.equal(f.values.kind_markup, 1);
  });

  it("sees a launch countdown and an e-mail-only sign-up form", () => {
    assert.equal(features("placeholder/coming-soon-mmc-countdown.html.gz").values.countdown, 1);
    assert.equal(features("placeholder/coming-soon-zumrut.html.gz").values.subscribe_only, 1);
  });

  it("stays silent on live pages: an article, a small business, a host's own marketing page", () => {
    for (const file of ["live/readability-bbc-1.html.gz", "live/registrar-home-wirenet-chile-es.html.gz"]) {
      const f = features(file);
      for (const name of ["install_path", "panel_link", "vendor_links", "countdown", "subscribe_only"])
        assert.equal(f.values[name], 0, `${file}: ${name}`);
      assert.ok((f.values.default_page_signs ?? 0) < 1, `${file}: fewer than three default-page signs`);
    }
  });

  it("names the default-page signs in the evidence of a parked verdict", () => {
    const verdict = verdictOf("placeholder/server-default-xampp-dashboard-es-721.html.gz");
    assert.equal(verdict.isParked, true);
    assert.equal(verdict.kind, "placeholder");
    const sign = verdict.evidence.find((e) => e.value.startsWith("default-page signs"));
    assert.ok(sign && sign.weight > 0, JSON.stringify(verdict.evidence));
    assert.equal(
      verdict.evidence.reduce((s, e) => s + e.weight, 0),
      verdict.score,
    );
  });
});

describe("kind of a page the wording does not name", () => {
  it("calls a stub a placeholder, not a parked domain", () => {
    const verdict = verdictOf("placeholder/stub-nginx-debian-arsen.html.gz");
    assert.equal(verdict.isParked, true);
    assert.equal(verdict.kind, "placeholder");
    assert.ok(verdict.evidence.some((e) => e.value.startsWith("a stub page") && e.weight > 0));
  });

  it("does not read a body cut short by the attempt's time as a stub", () => {
    const page = pageOf("placeholder/stub-nginx-debian-arsen.html.gz");
    const inputs = { ...pageInputs(page, readPage(page)), bodyCut: true };
    const assessment = assessPage(inputs, indicators, lexicon);
    assert.equal(assessment.features?.values.stub_page, 0);
    const verdict = evaluateParked(inputs, indicators);
    assert.ok(!verdict.evidence.some((e) => e.value.startsWith("a stub page")));
  });
});

describe("kind-of-page parsing", () => {
  it("knows control-panel ports and paths, not ordinary links", () => {
    for (const url of [
      "https://example.com:2083/",
      "https://host.example:8443/login",
      "https://example.com/cpanel",
      "http://localhost/phpmyadmin/",
      "https://cpanel.host.example/",
    ])
      assert.ok(isPanelUrl(new URL(url)), url);
    for (const url of [
      "https://example.com/",
      "https://example.com:8080/shop",
      "https://example.com/panel-discussion",
    ])
      assert.ok(!isPanelUrl(new URL(url)), url);
  });

  it("reads alternative texts, e-mail inputs, kind markers and Han text as words", () => {
    const facts = scanHtml(
      `<div class="countdown-timer"></div><section id="coming_soon"><img src="x.png" alt="Under construction">
      <form><input type="email" name="e"><input type="hidden" name="t"><input type="text" name="newsletter-mail"></form>
      <p>本栏目内容正在紧张筹备中</p></section>`,
    );
    assert.equal(facts.alts, "Under construction");
    assert.equal(facts.emailInputs, 2);
    assert.equal(facts.textInputs, 0);
    assert.deepEqual(facts.markers, ["countdown", "comingsoon"]);
    assert.equal(facts.wordCount, 7, "one spaced token and twelve Han characters (six words)");
  });
});
