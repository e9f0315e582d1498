// The multilingual wording of parked and placeholder pages, by category (data/parked-lexicon.tsv:
// sale, parking, registered, hosting, construction, expired, ads, and the word "domain" itself in
// many languages). Phrases and page text are folded the same way (lowercase, accents and marks
// dropped, a few letters spelled out) so one row matches "à vendre" and "a vendre", "została" and
// "zostala". The model reads counts per category, never single phrases: a missing phrase costs a
// little, not the verdict.
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
] as const;
type LexiconCategory = (typeof LEXICON_CATEGORIES)[number];

export interface Lexicon {
  phrases: Record<LexiconCategory, string[]>;
  /** The word "domain" in many languages, folded. */
  domainWords: string[];
  /** Hosts of web-server, control-panel and server-OS projects ("Powered by" on default pages). */
  softwareHosts: string[];
  languages: number;
  /** Phrases of spaced scripts by their first three characters, matched at word starts. */
  byPrefix: Map<string, { phrase: string; category: LexiconCategory | "domain" }[]>;
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

/** Lowercase, marks dropped (NFD), a few letters spelled out, whitespace collapsed. */
export function foldText(s: string): string {
  // Most pages are ASCII: nothing to decompose or spell out there.
  if (!NON_ASCII.test(s)) return s.toLowerCase().replace(/\s+/g, " ");
  return s
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(/[łøæœßđıё\u2019\u2018]/g, (c) => SPELLED[c] ?? c)
    .replace(/\s+/g, " ");
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
  const byPrefix = new Map<string, { phrase: string; category: LexiconCategory | "domain" }[]>();
  const unspaced: { phrase: string; category: LexiconCategory | "domain" }[] = [];
  const add = (phrase: string, category: LexiconCategory | "domain") => {
    if (UNSPACED.test(phrase)) unspaced.push({ phrase, category });
    else
      byPrefix.set(phrase.slice(0, 3), [...(byPrefix.get(phrase.slice(0, 3)) ?? []), { phrase, category }]);
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
  const found = (phrase: string, category: LexiconCategory | "domain") => {
    if (category === "domain") domainWords++;
    else if (!hits[category].includes(phrase)) hits[category].push(phrase);
  };
  let previousIsWord = false;
  for (let i = 0; i < folded.length; i++) {
    const isWord = isWordChar(folded.charCodeAt(i));
    if (isWord && !previousIsWord) {
      const candidates = lexicon.byPrefix.get(folded.slice(i, i + 3));
      if (candidates)
        for (const { phrase, category } of candidates)
          if (folded.startsWith(phrase, i)) found(phrase, category);
    }
    previousIsWord = isWord;
  }
  if (UNSPACED.test(folded)) {
    for (const { phrase, category } of lexicon.unspaced) if (folded.includes(phrase)) found(phrase, category);
  }
  return { hits, domainWords: Math.min(domainWords, 100) };
}

/** Folded text is lowercase: ASCII digits and letters, and every non-ASCII character but spaces and punctuation. */
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
  return !(c === 0xa0 || (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f));
}
/** Scripts written without spaces between words: Han, Kana, Hangul, Thai. */
const UNSPACED = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]/;
