// Features that name the KIND of page rather than a product (ADR 0092): an installer's or host's
// default page links only to its vendor and names it in the title, gives web-root paths and file
// names, links to a control panel; a holding page says what it is in its file, class and id names,
// runs a launch countdown, asks only for an e-mail address. Paths, ports, file names and markup
// read the same in every language, which is why they carry over to products and wordings the
// lexicon has never seen. Every value lies in [0, 1]; `found` says what was seen, for the evidence.
import type { PageFacts } from "./html-scan.js";

export const KIND_FEATURES = [
  "vendor_links",
  "title_names_link",
  "install_path",
  "panel_link",
  "kind_markup",
  "countdown",
  "subscribe_only",
  "title_welcome",
  "stub_page",
  "default_page_signs",
] as const;

/** The links of a page as the kind features read them (built once in pageFeatures). */
export interface LinkSummary {
  /** Anchors that lead somewhere: not "#...", javascript:, mailto: or tel:. */
  anchors: number;
  /** Distinct pages of the site itself that anchors lead to (the page itself left out). */
  ownPages: number;
  /** Anchors per registrable domain of other sites, social networks and messengers left out. */
  vendorAnchors: Map<string, number>;
  /** A control-panel URL among the refs, or null. */
  panel: string | null;
  /** Paths (lowercased) of the files the page loads and links on its own or other sites. */
  paths: string[];
}

/** Pages longer than this are articles or sites: none of the default-page shapes is read there. */
const KIND_PAGE_WORDS = 400;
/** Holding-page shapes (markup names, e-mail-only form) are read on pages at most this long. */
const HOLDING_PAGE_WORDS = 150;
/** A stub: at most this many words, at most one link, no script, form or frame. */
const STUB_WORDS = 10;
/** Share of a page's anchors that go to one other site for the page to be that site's. */
const VENDOR_SHARE = 0.6;
/** Share of the links to other sites that the site a title names must hold. */
const TITLE_VENDOR_SHARE = 0.5;

/** Sites a live business links to for contact or reach, never the page's vendor. */
const SOCIAL =
  /^(facebook|fb|instagram|twitter|x|linkedin|youtube|youtu|t|wa|whatsapp|pinterest|tiktok|vk|ok|telegram|google|goo|bit|tripadvisor|yelp|xing|threads|snapchat|discord|reddit|flickr|vimeo|spotify|soundcloud|behance|dribbble|medium|github|gitlab)\./;

/** Web-root paths, default file names and the shell lines of a setup (`ssh root@...`, `sudo`):
 *  how an installer or host tells its customer where the site goes, the same in every language. */
const INSTALL_PATH =
  /(\bssh\s+(-\S+\s+)*[a-z_][a-z0-9_-]*@|\bsudo\s+[a-z/]|\bapt(-get)?\s+install\b|\bsystemctl\s+[a-z]|\/opt\/[a-z]|\/var\/www|public_html|private_html|htdocs|httpdocs|wwwroot|\/usr\/share\/nginx|\/usr\/local\/(apache|nginx|www)|\/etc\/(apache2?|httpd|nginx)\b|sites-(available|enabled)|documentroot|www-data|\.htaccess|web\.config|iisstart\.html?|hostingstart\.html|\bindex\.(html?|php|asp|aspx|jsp|cgi)\b|\bdefault\.(html?|aspx?|php)\b)/i;

/** Control-panel ports and paths (cPanel/WHM, Plesk, DirectAdmin, Hestia/Vesta, CyberPanel,
 *  Webmin, ISPConfig, phpMyAdmin) and panel host names. A link there is a host's chrome, not a site's. */
const PANEL_PORTS = new Set([
  "2082",
  "2083",
  "2086",
  "2087",
  "2095",
  "2096",
  "2222",
  "2030",
  "2031",
  "8443",
  "8880",
  "8083",
  "8090",
  "7080",
  "10000",
  "20000",
]);
const PANEL_PATH = /^\/(cpanel|whm|plesk|phpmyadmin|cgi-sys|ispconfig|webmin|directadmin)(\/|$)/i;
const PANEL_HOST = /^(cpanel|whm|plesk|hpanel|directadmin)\./;

/** File and folder names of holding, launch, maintenance and parking pages and their plugins. */
const KIND_FILE =
  /(under[-_ .]?constr?uc|coming[-_ .]?soon|comingsoon|maintenance|maintainance|mantenimiento|manutenzione|manutencao|onderhoud|wartung|baustelle|construccion|construcao|costruzione|en[-_ ]?construction|bientot|proximamente|binnenkort|launching[-_ ]?soon|parked|domain[-_]?(for[-_]?)?sale|defaultwebpage|default[-_]?page)/;

const COUNTDOWN_SCRIPT = /countdown|86400000|1000\s*\*\s*60\s*\*\s*60\s*\*\s*24|1000\s*\*\s*3600\s*\*\s*24/i;

export interface KindFeatures {
  values: Record<(typeof KIND_FEATURES)[number], number>;
  /** What each firing feature saw (a path, a port, a domain), for the evidence list. */
  found: Partial<Record<(typeof KIND_FEATURES)[number], string>>;
}

/** Title or headline that greets ("Welcome to XAMPP", "Willkommen bei ...", "欢迎"), folded. */
const WELCOME =
  /^(welcome|willkommen|bienvenue|bienvenid[oa]s?|benvenut[oi]|bem-vind[oa]s?|welkom|witamy|witaj|vitejte|vitajte|dobrodosli|dobrodosao|bine ati venit|tervetuloa|valkommen|velkommen|udvozoljuk|hos geldiniz|добро пожаловать|ласкаво просимо|καλως ηρθατε|欢迎|ようこそ|환영합니다)/;
/** A greeting title is a default page's when it is this short (greeting and a name). */
const WELCOME_WORDS = 6;

/**
 * Features of the kind of page. `title` and `headline` are folded (parked-lexicon's foldText).
 */
export function kindFeatures(
  facts: PageFacts,
  links: LinkSummary,
  title: string,
  headline: string,
  bodyCut = false,
): KindFeatures {
  const words = facts.wordCount;
  const found: KindFeatures["found"] = {};
  const v = {} as KindFeatures["values"];
  for (const f of KIND_FEATURES) v[f] = 0;
  const short = words <= KIND_PAGE_WORDS;

  // The page is another site's: most of its anchors go to one vendor or host, none to its own pages.
  let top = "";
  let topCount = 0;
  for (const [domain, n] of links.vendorAnchors) if (n > topCount) [top, topCount] = [domain, n];
  if (short && links.ownPages === 0 && topCount > 0 && topCount / links.anchors >= VENDOR_SHARE) {
    v.vendor_links = 1;
    found.vendor_links = top;
  }
  // The title names a site the page links to ("Welcome 320press.com - BlueHost.com", "... hosted by
  // CloudTec.pl", "Test Page for the Apache HTTP Server" with a link to apache.org).
  const vendorTotal = [...links.vendorAnchors.values()].reduce((a, b) => a + b, 0);
  const titleWords = new Set(title.split(/[^a-z0-9\u00c0-\uffff]+/));
  if (short && title) {
    for (const [domain, n] of links.vendorAnchors) {
      // The named site must be the page's main outside link: a live page names its partners too.
      if (n / vendorTotal < TITLE_VENDOR_SHARE) continue;
      const label = domain.split(".")[0] ?? "";
      if (label.length >= 4 && titleWords.has(label)) {
        v.title_names_link = 1;
        found.title_names_link = domain;
        break;
      }
    }
  }
  if (short) {
    const path = INSTALL_PATH.exec(`${facts.text.slice(0, 8000)} ${facts.alts}`);
    if (path) {
      v.install_path = 1;
      found.install_path = path[0];
    }
  }
  if (short && links.panel) {
    v.panel_link = 1;
    found.panel_link = links.panel.slice(0, 100);
  }
  if (words <= HOLDING_PAGE_WORDS) {
    const marker =
      facts.markers.find((m) => m !== "countdown") ??
      links.paths.map((p) => KIND_FILE.exec(p)?.[0]).find((m) => m !== undefined);
    if (marker) {
      v.kind_markup = 1;
      found.kind_markup = marker;
    }
    if (facts.emailInputs > 0 && facts.textInputs === 0 && (facts.tags.get("textarea") ?? 0) === 0) {
      v.subscribe_only = 1;
      found.subscribe_only = `${facts.emailInputs} e-mail input`;
    }
  }
  if (
    short &&
    (facts.markers.includes("countdown") ||
      COUNTDOWN_SCRIPT.test(facts.inlineScript) ||
      links.paths.some((p) => p.includes("countdown")))
  ) {
    v.countdown = 1;
    found.countdown = "a launch countdown";
  }
  if (short) {
    const greeting = [title, headline].find(
      (t) => WELCOME.test(t.trim()) && t.trim().split(" ").length <= WELCOME_WORDS,
    );
    if (greeting) {
      v.title_welcome = 1;
      found.title_welcome = greeting.trim().slice(0, 80);
    }
  }
  // A stub ("hello!", a logo, "Welcome to Express"): a site not built. Live pages this small are
  // script shells or carry a form or frame (0 of 356 live pages in the corpus at 769 pages). A
  // body cut short by the attempt's time is small because it stopped, not because the site is.
  // A page that sends the visitor on (meta refresh) is a redirect, not a stub: what it leads to
  // is the site (a redirect to another site is the lander evidence, redirect_foreign).
  const tag = (name: string) => facts.tags.get(name) ?? 0;
  if (
    !bodyCut &&
    words <= STUB_WORDS &&
    facts.refs.filter((r) => r.element === "a").length <= 1 &&
    !facts.refs.some((r) => r.element === "refresh") &&
    tag("script") + tag("form") + tag("iframe") + tag("frame") + tag("frameset") === 0
  ) {
    v.stub_page = 1;
    found.stub_page = `${words} words, no script or form`;
  }
  return { values: v, found };
}

/** The default-page signs a page shows, by name, with what was seen (at most KIND_PAGE_WORDS words). */
export function defaultPageSigns(
  words: number,
  ownPages: number,
  v: Record<string, number>,
  found: Record<string, string>,
  hits: Record<string, string[]>,
): string[] {
  // A default page links a handful of its own pages at most (a dashboard's FAQ and tools); a
  // host's or agency's own site that names cPanel and Apache links its product pages.
  if (words > KIND_PAGE_WORDS || ownPages > DEFAULT_PAGE_OWN_PAGES) return [];
  const signs: string[] = [];
  const seen = (f: string, name: string) => {
    if ((v[f] ?? 0) > 0) signs.push(found[f] ? `${name} (${found[f]})` : name);
  };
  seen("software_name", "a web-server or panel product name");
  seen("software_ref", "a link to a web-server or panel project");
  seen("vendor_links", "links lead only to one other site");
  seen("install_path", "a web-root path or default file name");
  seen("panel_link", "a control-panel link");
  seen("title_names_link", "the title names the linked site");
  seen("title_welcome", "a greeting title");
  if (hits.hosting) signs.push(`hosting wording (${hits.hosting.slice(0, 2).join(", ")})`);
  if (hits.install) signs.push(`installer wording (${hits.install.slice(0, 2).join(", ")})`);
  return signs;
}

/** Default-page signs that together decide: each is common alone, three rarely meet on a live
 *  page (2 of 356 live pages at 769 pages, both sites that kept a server's default text). */
export const DEFAULT_PAGE_SIGNS = 3;
/** The most distinct own pages a default page links to (XAMPP's dashboard links 7). */
const DEFAULT_PAGE_OWN_PAGES = 9;

/** Whether a registrable domain is a social network or messenger (not a vendor). */
export function isSocial(domain: string): boolean {
  return SOCIAL.test(domain);
}

/** A control-panel URL: its port, first path segment or host name. */
export function isPanelUrl(url: URL): boolean {
  return PANEL_PORTS.has(url.port) || PANEL_PATH.test(url.pathname) || PANEL_HOST.test(url.hostname);
}
