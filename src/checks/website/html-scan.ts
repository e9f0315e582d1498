// A small HTML tokenizer for parked-page evidence. No HTML parser is installed (parse5 and
// htmlparser2 are absent from node_modules and adding one is not ours to do), so this walks the
// markup once and keeps only what the parked verdict reads: the title, the visible text, the URLs
// that elements load or point to, meta refresh targets, JavaScript location assignments and the
// inline script text. Invariants: comments, doctype and processing instructions are skipped;
// script/style/textarea/title bodies are raw text up to their end tag (a "<" inside a script
// never opens a tag); attribute values may be quoted with either quote or bare; malformed markup
// never throws, it only yields less.

export type RefElement =
  | "a"
  | "area"
  | "link"
  | "script"
  | "iframe"
  | "frame"
  | "form"
  | "img"
  | "embed"
  | "object"
  | "refresh"
  | "js_redirect";

interface PageRef {
  element: RefElement;
  url: string;
}

export interface PageFacts {
  title: string;
  /** Visible text (not script, style, template or head), whitespace collapsed. */
  text: string;
  wordCount: number;
  lang: string | null;
  refs: PageRef[];
  /** Inline script bodies joined (capped), for JavaScript redirects and literal markers. */
  inlineScript: string;
  /** Start tags seen, by name (structure: nav, form, input, h1, img, p...). */
  tags: Map<string, number>;
  /** Visible text of the first h1 (the headline), whitespace collapsed. */
  headline: string;
  /** The robots meta tag's content, lowercased ("" when absent). */
  robots: string;
  /** Alternative texts of images, joined (capped): what an image-only page shows. */
  alts: string;
  /** Inputs a visitor types an e-mail address into (type email, or a text input named for mail). */
  emailInputs: number;
  /** Other inputs a visitor types into (text, tel, password, search...; not hidden, buttons or boxes). */
  textInputs: number;
  /** Distinct kinds named by class or id attributes (`countdown`, `coming-soon`, `maintenance`...),
   *  lowercased, at most MAX_MARKERS: markup names what a page is in every language. */
  markers: string[];
  /** Empty elements named for a menu or header (`<div id="navbar-container"></div>`,
   *  `<custom-header></custom-header>`, an empty `<nav>`): a slot that a script or an include fills
   *  with the site's navigation. */
  navSlots: number;
  /** The first such slot, as `#id` or `<element>` (for the evidence list); "" when none. */
  navSlot: string;
  /** Links inside `nav` elements: a `nav` that holds only a logo or a theme switch leads nowhere. */
  navLinks: number;
}

const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "noembed", "noframes"]);
const HIDDEN = new Set(["script", "style", "template", "head", "noembed", "noframes", "svg"]);
const URL_ATTRS: Record<string, { element: RefElement; attr: string }[]> = {
  a: [{ element: "a", attr: "href" }],
  area: [{ element: "area", attr: "href" }],
  link: [{ element: "link", attr: "href" }],
  script: [{ element: "script", attr: "src" }],
  iframe: [{ element: "iframe", attr: "src" }],
  frame: [{ element: "frame", attr: "src" }],
  form: [{ element: "form", attr: "action" }],
  img: [{ element: "img", attr: "src" }],
  embed: [{ element: "embed", attr: "src" }],
  object: [{ element: "object", attr: "data" }],
};
/** An id or custom element naming a menu or header: navbar, nav-root, main-menu, site-header. */
const NAV_SLOT = /nav|menu|header/i;
const MAX_INLINE_SCRIPT = 128 * 1024;
const MAX_TEXT = 64 * 1024;
const MAX_ALTS = 2000;
/** Input types a visitor does not type text into. */
const NOT_TYPED = new Set([
  "hidden",
  "submit",
  "button",
  "checkbox",
  "radio",
  "image",
  "reset",
  "file",
  "range",
  "color",
]);
const MAIL_NAME = /mail/i;
const MAX_MARKERS = 10;
/** Class and id words of launch timers, holding, maintenance and for-sale pages (template names). */
const KIND_MARKER =
  /count-?_?down|coming-?_?soon|under-?_?construction|maintenance|maintainance|parked|domain-?_?(for-?_?)?sale/i;

export function scanHtml(html: string): PageFacts {
  const refs: PageRef[] = [];
  const text: string[] = [];
  let textLength = 0;
  let title = "";
  let lang: string | null = null;
  let inlineScript = "";
  let hiddenDepth = 0;
  const open: string[] = [];
  const tags = new Map<string, number>();
  let headline = "";
  let robots = "";
  let headlineFrom = -1;
  let alts = "";
  let emailInputs = 0;
  let textInputs = 0;
  const markers: string[] = [];
  let navSlots = 0;
  let navSlot = "";
  let navLinks = 0;
  let i = 0;
  const n = html.length;

  const pushText = (s: string) => {
    if (hiddenDepth > 0 || textLength > MAX_TEXT) return;
    const t = decodeEntities(s);
    text.push(t);
    textLength += t.length;
  };

  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      pushText(html.slice(i));
      break;
    }
    if (lt > i) pushText(html.slice(i, lt));
    i = lt;
    if (html.startsWith("<!--", i)) {
      const end = html.indexOf("-->", i + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    const next = html.charCodeAt(i + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = html.indexOf(">", i + 2);
      i = end === -1 ? n : end + 1;
      continue;
    }
    if (next === 47 /* / */) {
      const m = /^<\/([a-zA-Z][a-zA-Z0-9:-]*)[^>]*>?/.exec(html.slice(i, i + 200));
      if (!m) {
        pushText("<");
        i += 1;
        continue;
      }
      closeTag(m[1]!.toLowerCase());
      i += m[0].length;
      continue;
    }
    if (!isAsciiLetter(next)) {
      pushText("<");
      i += 1;
      continue;
    }
    const tag = readTag(html, i);
    i = tag.end;
    const name = tag.name;
    tags.set(name, (tags.get(name) ?? 0) + 1);
    if (name === "h1" && headlineFrom === -1) headlineFrom = text.length;
    if (name === "html" && tag.attrs.lang) lang = tag.attrs.lang.toLowerCase();
    if (name === "img" && tag.attrs.alt && alts.length < MAX_ALTS) alts += ` ${tag.attrs.alt}`;
    if (name === "input") {
      const type = (tag.attrs.type ?? "text").toLowerCase();
      if (
        type === "email" ||
        (type === "text" && MAIL_NAME.test(`${tag.attrs.name} ${tag.attrs.id} ${tag.attrs.placeholder}`))
      )
        emailInputs++;
      else if (!NOT_TYPED.has(type)) textInputs++;
    }
    if ((tag.attrs.class || tag.attrs.id) && markers.length < MAX_MARKERS) {
      const m = KIND_MARKER.exec(`${tag.attrs.class ?? ""} ${tag.attrs.id ?? ""}`);
      const marker = m?.[0].toLowerCase().replace(/[-_]/g, "");
      if (marker && !markers.includes(marker)) markers.push(marker);
    }
    if (name === "a" && tag.attrs.href && open.includes("nav")) navLinks++;
    if (
      (name === "nav" ||
        (name.includes("-") && NAV_SLOT.test(name)) ||
        (tag.attrs.id && NAV_SLOT.test(tag.attrs.id))) &&
      !tag.selfClosing &&
      new RegExp(`^\\s*</${name}\\s*>`, "i").test(html.slice(i, i + 200))
    ) {
      navSlots++;
      if (!navSlot) navSlot = tag.attrs.id && NAV_SLOT.test(tag.attrs.id) ? `#${tag.attrs.id}` : `<${name}>`;
    }
    if (name === "meta") {
      const equiv = (tag.attrs["http-equiv"] ?? "").toLowerCase();
      if ((tag.attrs.name ?? "").toLowerCase() === "robots") robots = (tag.attrs.content ?? "").toLowerCase();
      if (equiv === "refresh") {
        const target = refreshTarget(tag.attrs.content ?? "");
        if (target) refs.push({ element: "refresh", url: target });
      }
    }
    for (const { element, attr } of URL_ATTRS[name] ?? []) {
      const value = tag.attrs[attr];
      if (value?.trim()) refs.push({ element, url: value.trim() });
    }
    if (name === "br" || name === "p" || name === "div" || name === "li" || /^h[1-6]$/.test(name))
      pushText(" ");
    if (RAW_TEXT.has(name) && !tag.selfClosing) {
      const close = findClose(html, i, name);
      const body = html.slice(i, close.start);
      i = close.end;
      if (name === "title") {
        if (!title) title = collapse(decodeEntities(body));
      } else if (name === "script") {
        const type = (tag.attrs.type ?? "").toLowerCase();
        const isJs = !type || type.includes("javascript") || type === "module";
        if (isJs && inlineScript.length < MAX_INLINE_SCRIPT) {
          inlineScript += `${body.slice(0, MAX_INLINE_SCRIPT - inlineScript.length)}\n`;
        }
      } else if (name === "textarea" && hiddenDepth === 0) {
        pushText(` ${body} `);
      }
      continue;
    }
    if (!tag.selfClosing && !VOID.has(name)) {
      open.push(name);
      if (HIDDEN.has(name)) hiddenDepth++;
    }
  }

  function closeTag(name: string) {
    if (name === "h1" && headlineFrom >= 0 && !headline) {
      headline = collapse(text.slice(headlineFrom).join("")).slice(0, 200);
      if (!headline) headlineFrom = -1;
    }
    const at = open.lastIndexOf(name);
    if (at === -1) return;
    for (const closed of open.splice(at)) if (HIDDEN.has(closed)) hiddenDepth = Math.max(0, hiddenDepth - 1);
    pushText(" ");
  }

  for (const target of jsRedirects(inlineScript)) refs.push({ element: "js_redirect", url: target });
  const visible = collapse(text.join(""));
  return {
    title,
    text: visible,
    wordCount: wordCount(visible),
    lang,
    refs,
    inlineScript,
    tags,
    headline,
    robots,
    alts: collapse(alts).slice(0, MAX_ALTS),
    emailInputs,
    navSlots,
    navSlot,
    navLinks,
    textInputs,
    markers,
  };
}

/** Words of visible text; Han and Kana text has no spaces, so two of its characters count as a word. */
function wordCount(visible: string): number {
  if (visible === "") return 0;
  const spaced = visible.split(" ").length;
  // A Han or Kana page shows it in its first characters; most pages need no full scan.
  if (!UNSPACED_SCRIPT.test(visible.slice(0, 4000))) return spaced;
  return spaced + Math.floor((visible.match(UNSPACED_CHARS)?.length ?? 0) / 2);
}
const UNSPACED_SCRIPT = /[\u3040-\u30ff\u3400-\u9fff]/;
const UNSPACED_CHARS = /[\u3040-\u30ff\u3400-\u9fff]/g;

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

interface Tag {
  name: string;
  attrs: Record<string, string>;
  selfClosing: boolean;
  end: number;
}

/** Reads `<name attr=value ...>` starting at `start` (the "<"); quotes may hide ">". */
function readTag(html: string, start: number): Tag {
  let i = start + 1;
  const n = html.length;
  let name = "";
  while (i < n && !isSpace(html.charCodeAt(i)) && html[i] !== ">" && html[i] !== "/") name += html[i++];
  const attrs: Record<string, string> = {};
  let selfClosing = false;
  while (i < n) {
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    if (i >= n) break;
    if (html[i] === ">") {
      i++;
      break;
    }
    if (html[i] === "/") {
      selfClosing = html[i + 1] === ">";
      i++;
      continue;
    }
    let attr = "";
    while (i < n && !isSpace(html.charCodeAt(i)) && html[i] !== "=" && html[i] !== ">" && html[i] !== "/")
      attr += html[i++];
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    let value = "";
    if (html[i] === "=") {
      i++;
      while (i < n && isSpace(html.charCodeAt(i))) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const end = html.indexOf(quote, i + 1);
        value = html.slice(i + 1, end === -1 ? n : end);
        i = end === -1 ? n : end + 1;
      } else {
        while (i < n && !isSpace(html.charCodeAt(i)) && html[i] !== ">") value += html[i++];
      }
    }
    if (attr) {
      const key = attr.toLowerCase();
      if (!(key in attrs)) attrs[key] = decodeEntities(value);
    }
  }
  return { name: name.toLowerCase(), attrs, selfClosing, end: i };
}

function findClose(html: string, from: number, name: string): { start: number; end: number } {
  const re = new RegExp(`</${name}\\s*>`, "ig");
  re.lastIndex = from;
  const m = re.exec(html);
  return m ? { start: m.index, end: m.index + m[0].length } : { start: html.length, end: html.length };
}

/** `content="5; url=https://..."` -> the URL; a bare delay is no redirect. */
export function refreshTarget(content: string): string | null {
  const m = /^\s*\d*(?:\.\d+)?\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)(.*?)\1\s*$/i.exec(content);
  const url = m?.[2]?.trim();
  return url && !/^\d+$/.test(url) ? url : null;
}

/** String targets of location assignments and replace/assign calls in inline scripts. */
export function jsRedirects(script: string): string[] {
  const out: string[] = [];
  const re =
    /\blocation(?:\.href)?\s*=\s*(["'`])([^"'`\n]{1,500})\1|\blocation\.(?:replace|assign)\s*\(\s*(["'`])([^"'`\n]{1,500})\3/g;
  for (const m of script.matchAll(re)) {
    const target = (m[2] ?? m[4] ?? "").trim();
    if (target && !out.includes(target)) out.push(target);
    if (out.length >= 20) break;
  }
  return out;
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  euro: "€",
  copy: "©",
  reg: "®",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
  auml: "ä",
  ouml: "ö",
  uuml: "ü",
  Auml: "Ä",
  Ouml: "Ö",
  Uuml: "Ü",
  szlig: "ß",
  eacute: "é",
  egrave: "è",
  ecirc: "ê",
  agrave: "à",
  aacute: "á",
  iacute: "í",
  oacute: "ó",
  uacute: "ú",
  ntilde: "ñ",
  ccedil: "ç",
};

function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});?/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X"
          ? Number.parseInt(body.slice(2), 16)
          : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? NAMED[body.toLowerCase()] ?? whole;
  });
}

function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
