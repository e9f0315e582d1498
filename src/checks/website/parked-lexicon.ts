// The multilingual wording of parked and placeholder pages, by category (data/parked-lexicon.tsv:
// sale, parking, registered, hosting, construction, expired, ads, install; a form's reply and a
// forwarding notice as counter-evidence; and the word "domain" itself in many languages). Phrases
// and page text are folded the same way (lowercase, accents and marks dropped, a few letters
// spelled out) so one row matches "à vendre" and "a vendre", "została" and "zostala". The model
// reads counts per category, never single phrases: a missing phrase costs a little, not the verdict.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const LEXICON_CATEGORIES = [
  "sale",
  "parking",
  "registered",
  "hosting",
  "construction",
  "expired",
  "ads",
  // An installer's or host's instructions ("next steps", "control panel", "via FTP"): common on live
  // pages too, so never a specific sign alone (ADR 0092).
  "install",
  // Counter-evidence (ADR 0094): a form's acknowledgement ("thank you for your message", "we will
  // get back to you"). A thank-you page is as thin as a holding page and says "soon" too ("we will
  // answer soon"); these phrases tell the model which one it reads. Never a sign of parking.
  "reply",
  // Counter-evidence (ADR 0095): a forwarding notice ("we have moved", "update your bookmarks"). A
  // working site's old address is as thin as a holding page; these phrases say it points onward.
  "moved",
] as const;
type LexiconCategory = (typeof LEXICON_CATEGORIES)[number];

/** Categories that speak against a placeholder: never a parking category or a specific sign. */
export const COUNTER_CATEGORIES: readonly string[] = ["reply", "moved"];

export interface Lexicon {
  phrases: Record<LexiconCategory, string[]>;
  /** The word "domain" in many languages, folded. */
  domainWords: string[];
  /** Hosts of web-server, control-panel and server-OS projects ("Powered by" on default pages). */
  softwareHosts: string[];
  languages: number;
  /** Phrases of spaced scripts by their first three characters, matched at word starts. */
  byPrefix: Map<string, { phrase: string; category: LexiconCategory | "domain"; words?: string[] }[]>;
  /** Phrases of scripts written without spaces (CJK, Thai), matched anywhere. */
  unspaced: { phrase: string; category: LexiconCategory | "domain" }[];
}

const LEXICON_PATH = fileURLToPath(new URL("./data/parked-lexicon.tsv", import.meta.url));

const SPELLED: Record<string, string> = {
  ł: "l",
  ø: "o",
  æ: "ae",
  œ: "oe",
  ß: "ss",
  đ: "d",
  ı: "i",
  ё: "е",
  "\u2019": "'",
  "\u2018": "'",
};

/**
 * Traditional Han characters (and the Japanese forms that differ) with their simplified form: a
 * phrase written once in simplified characters also matches a page from Taiwan or Hong Kong
 * ("系統維護" is "系统维护"), as accent folding does for Latin scripts. Both phrases and pages are
 * folded, so a Japanese phrase still matches Japanese text.
 */
const TRADITIONAL =
  "認认頁页點点創创設设裝装帳账賬账戶户暫暂網网註注冊册該该將将線线請请維维護护統统時时無无訪访問问後后試试" +
  "務务動动賣卖買买轉转讓让價价聯联繫系係系詢询購购開开發发過过續续費费託托虛虚擬拟機机間间歡欢測测覽览" +
  "廣广關关結结號号碼码應应環环業业體体驗验證证書书電电話话郵邮報报產产門门為为這这個个們们來来會会經经" +
  "與与對对說说錯错誤误復复備备準准臨临閉闭啟启實实現现態态數数據据預预計计劃划資资訊讯級级記记錄录檢检" +
  "連连販贩売卖関关録录検检稱称歸归鍵键傳传狀状圖图檔档謝谢";
const TO_SIMPLIFIED = new Map<string, string>();
for (let i = 0; i + 1 < TRADITIONAL.length; i += 2) TO_SIMPLIFIED.set(TRADITIONAL[i]!, TRADITIONAL[i + 1]!);
const HAN = /[\u3400-\u9fff]/;
const TRADITIONAL_CHARS = new RegExp(`[${[...TO_SIMPLIFIED.keys()].join("")}]`, "g");

/** Lowercase, marks dropped (NFD), a few letters spelled out, traditional Han characters
 *  simplified, whitespace collapsed. */
export function foldText(s: string): string {
  // Most pages are ASCII: nothing to decompose or spell out there.
  if (!NON_ASCII.test(s)) return s.toLowerCase().replace(/\s+/g, " ");
  const folded = s
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(/[łøæœßđıё\u2019\u2018]/g, (c) => SPELLED[c] ?? c)
    .replace(/\s+/g, " ");
  return HAN.test(folded) ? folded.replace(TRADITIONAL_CHARS, (c) => TO_SIMPLIFIED.get(c) ?? c) : folded;
}

const NON_ASCII = /[^ -~\t\n\r\f\v]/;

let cached: Lexicon | null = null;

export function loadLexicon(path = LEXICON_PATH): Lexicon {
  if (cached && path === LEXICON_PATH) return cached;
  const phrases = Object.fromEntries(LEXICON_CATEGORIES.map((c) => [c, [] as string[]])) as Record<
    LexiconCategory,
    string[]
  >;
  const domainWords: string[] = [];
  const softwareHosts: string[] = [];
  const languages = new Set<string>();
  for (const line of readFileSync(path, "utf8").split(/\r?\n/).slice(1)) {
    const [category, lang, phrase] = line.split("\t");
    if (!category || !phrase) continue;
    const folded = foldText(phrase.trim());
    if (lang && lang !== "-") languages.add(lang);
    if (category === "domain") domainWords.push(folded);
    else if (category === "software") softwareHosts.push(folded);
    else if (category in phrases) phrases[category as LexiconCategory].push(folded);
  }
  const byPrefix = new Map<
    string,
    { phrase: string; category: LexiconCategory | "domain"; words?: string[] }[]
  >();
  const unspaced: { phrase: string; category: LexiconCategory | "domain" }[] = [];
  const add = (phrase: string, category: LexiconCategory | "domain") => {
    if (UNSPACED.test(phrase)) unspaced.push({ phrase, category });
    else {
      // Phrases of three or more words also match with one word inserted (gappedAt).
      const words = phrase.split(" ");
      const entry = words.length >= 3 ? { phrase, category, words } : { phrase, category };
      byPrefix.set(phrase.slice(0, 3), [...(byPrefix.get(phrase.slice(0, 3)) ?? []), entry]);
    }
  };
  for (const c of LEXICON_CATEGORIES) for (const p of phrases[c]) add(p, c);
  for (const w of domainWords) add(w, "domain");
  const lexicon = { phrases, domainWords, softwareHosts, languages: languages.size, byPrefix, unspaced };
  if (path === LEXICON_PATH) cached = lexicon;
  return lexicon;
}

type LexiconHits = Record<LexiconCategory, string[]>;

export interface LexiconScan {
  hits: LexiconHits;
  /** Occurrences of "domain" (any language). */
  domainWords: number;
}

/**
 * The phrases of each category found in already folded text, and the count of "domain" words.
 * Spaced scripts are matched where a word starts (so "hosting" is not found in "ghosting"), by
 * their first three characters: one pass over the text, not one search per phrase.
 */
export function scanLexicon(folded: string, lexicon: Lexicon): LexiconScan {
  const hits = Object.fromEntries(LEXICON_CATEGORIES.map((c) => [c, [] as string[]])) as LexiconHits;
  let domainWords = 0;
  // Where "soon" wording and a form's reply were seen: "em breve entraremos em contato" is a reply.
  const soon: { phrase: string; at: number }[] = [];
  const replies: { at: number; end: number }[] = [];
  const found = (phrase: string, category: LexiconCategory | "domain", at: number) => {
    if (category === "domain") domainWords++;
    else {
      if (category === "construction") soon.push({ phrase, at });
      else if (category === REPLY) replies.push({ at, end: at + phrase.length });
      if (!hits[category].includes(phrase)) hits[category].push(phrase);
    }
  };
  let previousIsWord = false;
  for (let i = 0; i < folded.length; i++) {
    const isWord = isWordChar(folded.charCodeAt(i));
    if (isWord && !previousIsWord) {
      const candidates = lexicon.byPrefix.get(folded.slice(i, i + 3));
      if (candidates)
        for (const { phrase, category, words } of candidates)
          if (folded.startsWith(phrase, i) || (words && gappedAt(folded, i, words)))
            found(phrase, category, i);
    }
    previousIsWord = isWord;
  }
  if (UNSPACED.test(folded)) {
    for (const { phrase, category } of lexicon.unspaced) {
      const at = folded.indexOf(phrase);
      if (at !== -1) found(phrase, category, at);
    }
  }
  if (replies.length > 0 && soon.length > 0) {
    hits.construction = hits.construction.filter((phrase) =>
      soon.some((s) => s.phrase === phrase && !replies.some((r) => partOfReply(folded, s.at, s.phrase, r))),
    );
  }
  return { hits, domainWords: Math.min(domainWords, 100) };
}

const REPLY = "reply";
/** Text between a "soon" phrase and a reply of the same sentence: at most one word, no full stop. */
const SAME_CLAUSE = /^[^.!?;\u3002\uff01\uff1f]*$/;

/** "We will contact you soon", "em breve entraremos em contato": the "soon" is the reply's. */
function partOfReply(
  folded: string,
  at: number,
  phrase: string,
  reply: { at: number; end: number },
): boolean {
  const end = at + phrase.length;
  if (reply.at < end && reply.end > at) return true; // they overlap
  const between = reply.at >= end ? folded.slice(end, reply.at) : folded.slice(reply.end, at);
  return between.trim().split(" ").filter(Boolean).length <= 1 && SAME_CLAUSE.test(between);
}

/** Punctuation that may close or open a word in running text. */
const EDGE_PUNCTUATION = /^[("'\u00ab\u201e]+|[)"'.,;:!?\u00bb\u201c]+$/g;
/** The most characters a gapped phrase may span beyond its own length. */
const GAP_CHARS = 24;

/**
 * A phrase of three or more words found at `i` with one extra word between two of its words:
 * "utrzymywana jest na serwerach" for "utrzymywana na serwerach", "domain name is registered" for
 * "domain is registered". Wording is written many ways; an inserted auxiliary or adverb should
 * not hide a phrase the lexicon knows.
 */
function gappedAt(folded: string, i: number, words: readonly string[]): boolean {
  const first = words[0]!;
  // Most candidates fail here: the first word must stand alone at i (no string is built for it).
  if (!folded.startsWith(first, i) || folded.charCodeAt(i + first.length) !== 32) return false;
  const span = words.reduce((n, w) => n + w.length + 1, 0) + GAP_CHARS;
  const tokens = folded.slice(i, i + span).split(" ");
  let t = 1;
  let gaps = 0;
  for (let k = 1; k < words.length; k++) {
    while (t < tokens.length && tokens[t]!.replace(EDGE_PUNCTUATION, "") !== words[k]) {
      if (++gaps > 1) return false;
      t++;
    }
    if (t >= tokens.length) return false;
    t++;
  }
  return gaps === 1;
}

/** Folded text is lowercase: ASCII digits and letters, and every non-ASCII character but spaces and punctuation. */
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
  return !(c === 0xa0 || (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f));
}
/** Scripts written without spaces between words: Han, Kana, Hangul, Thai. */
const UNSPACED = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]/;
