// The header row of a sheet mapped to lead fields, in English and the main European languages
// (German, French, Spanish, Italian, Portuguese, Dutch, Polish, Swedish). Headers are compared
// folded: lower case, accents removed, spaces, dashes, dots and underscores dropped. An explicit
// `mapping` (field -> header text) wins over the automatic one.
export const LEAD_FIELDS = [
  "email",
  "website",
  "firstName",
  "lastName",
  "company",
  "title",
  "phone",
] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];

const SYNONYMS: Record<LeadField, string[]> = {
  email: [
    "email",
    "e-mail",
    "email address",
    "e-mail address",
    "mail",
    "emailadresse",
    "e-mail-adresse",
    "courriel",
    "adresse e-mail",
    "adresse email",
    "correo",
    "correo electronico",
    "correo electrónico",
    "posta elettronica",
    "indirizzo email",
    "endereco de email",
    "endereço de e-mail",
    "e-mailadres",
    "adres e-mail",
    "e-postadress",
    "epost",
  ],
  website: [
    "website",
    "web site",
    "domain",
    "url",
    "site",
    "site web",
    "webseite",
    "homepage",
    "sitio web",
    "pagina web",
    "página web",
    "sito web",
    "sito",
    "dominio",
    "domaine",
    "domein",
    "strona www",
    "strona internetowa",
    "webbplats",
    "hemsida",
  ],
  firstName: [
    "first name",
    "firstname",
    "given name",
    "forename",
    "vorname",
    "prénom",
    "prenom",
    "nombre",
    "nome",
    "voornaam",
    "imię",
    "imie",
    "förnamn",
    "fornamn",
  ],
  lastName: [
    "last name",
    "lastname",
    "surname",
    "family name",
    "nachname",
    "familienname",
    "nom",
    "nom de famille",
    "apellido",
    "apellidos",
    "cognome",
    "sobrenome",
    "apelido",
    "achternaam",
    "nazwisko",
    "efternamn",
  ],
  company: [
    "company",
    "company name",
    "organization",
    "organisation",
    "account",
    "firma",
    "unternehmen",
    "entreprise",
    "société",
    "societe",
    "empresa",
    "compañía",
    "compania",
    "azienda",
    "società",
    "societa",
    "bedrijf",
    "organizacja",
    "företag",
    "foretag",
  ],
  title: [
    "title",
    "job title",
    "position",
    "role",
    "jobtitle",
    "titel",
    "position",
    "berufsbezeichnung",
    "poste",
    "fonction",
    "titre",
    "cargo",
    "puesto",
    "ruolo",
    "qualifica",
    "função",
    "funcao",
    "functie",
    "stanowisko",
    "befattning",
    "titel",
  ],
  phone: [
    "phone",
    "phone number",
    "telephone",
    "tel",
    "mobile",
    "telefon",
    "telefonnummer",
    "téléphone",
    "telephone",
    "teléfono",
    "telefono",
    "telefone",
    "telefoonnummer",
    "numer telefonu",
    "telefonnummer",
  ],
};

export function foldHeader(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[\s\-_.:*]+/g, "");
}

const LOOKUP = new Map<string, LeadField>();
for (const field of LEAD_FIELDS)
  for (const synonym of SYNONYMS[field])
    if (!LOOKUP.has(foldHeader(synonym))) LOOKUP.set(foldHeader(synonym), field);

export type HeaderMapping = Partial<Record<LeadField, number>>;

/** Column index of each lead field found in `header`; the first matching column wins. */
export function mapHeader(header: string[], explicit: Partial<Record<string, string>> = {}): HeaderMapping {
  const mapping: HeaderMapping = {};
  const folded = header.map(foldHeader);
  folded.forEach((text, column) => {
    const field = LOOKUP.get(text);
    if (field && mapping[field] === undefined) mapping[field] = column;
  });
  for (const [field, headerText] of Object.entries(explicit)) {
    if (!(LEAD_FIELDS as readonly string[]).includes(field) || !headerText) continue;
    const column = folded.indexOf(foldHeader(headerText));
    if (column >= 0) mapping[field as LeadField] = column;
  }
  return mapping;
}
