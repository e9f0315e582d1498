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
export type LexiconCategory = (typeof LEXICON_CATEGORIES)[number];

export interface Lexicon {
  phrases: Record<LexiconCategory, string[]>;
  /** The word "domain" in many languages, folded. */
  domainWords: string[];
  /** Hosts of web-server, control-panel and server-OS projects ("Powered by" on default pages). */
  softwareHosts: string[];
  languages: number;
}

export const LEXICON_PATH = fileURLToPath(new URL("./data/parked-lexicon.tsv", import.meta.url));

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
  return s
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .replace(/[łøæœßđıё\u2019\u2018]/g, (c) => SPELLED[c] ?? c)
    .replace(/\s+/g, " ");
}

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
  const lexicon = { phrases, domainWords, softwareHosts, languages: languages.size };
  if (path === LEXICON_PATH) cached = lexicon;
  return lexicon;
}

export type LexiconHits = Record<LexiconCategory, string[]>;

/** The phrases of each category found in already folded text. */
export function lexiconHits(folded: string, lexicon: Lexicon): LexiconHits {
  const hits = {} as LexiconHits;
  for (const category of LEXICON_CATEGORIES) {
    hits[category] = lexicon.phrases[category].filter((p) => folded.includes(p));
  }
  return hits;
}

/** Occurrences of "domain" (any language) in folded text. */
export function domainWordCount(folded: string, lexicon: Lexicon): number {
  let n = 0;
  for (const word of lexicon.domainWords) {
    let at = folded.indexOf(word);
    while (at !== -1 && n < 100) {
      n++;
      at = folded.indexOf(word, at + word.length);
    }
  }
  return n;
}
