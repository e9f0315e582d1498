import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mapHeader } from "./sheet-mapping.js";

describe("sheet header mapping", () => {
  const cases: [string, string[], Record<string, number>][] = [
    [
      "English",
      ["Email Address", "Website", "First Name", "Last Name", "Company", "Job Title", "Phone"],
      { email: 0, website: 1, firstName: 2, lastName: 3, company: 4, title: 5, phone: 6 },
    ],
    [
      "German",
      ["Vorname", "Nachname", "E-Mail-Adresse", "Firma", "Webseite", "Telefon"],
      { firstName: 0, lastName: 1, email: 2, company: 3, website: 4, phone: 5 },
    ],
    [
      "French",
      ["Prénom", "Nom", "Courriel", "Société", "Site web", "Téléphone", "Poste"],
      { firstName: 0, lastName: 1, email: 2, company: 3, website: 4, phone: 5, title: 6 },
    ],
    [
      "Spanish",
      ["Nombre", "Apellidos", "Correo electrónico", "Empresa", "Sitio web", "Teléfono", "Cargo"],
      { firstName: 0, lastName: 1, email: 2, company: 3, website: 4, phone: 5, title: 6 },
    ],
    [
      "Italian",
      ["Nome", "Cognome", "E-mail", "Azienda", "Sito web", "Telefono"],
      { firstName: 0, lastName: 1, email: 2, company: 3, website: 4, phone: 5 },
    ],
    [
      "Dutch and Polish",
      ["Voornaam", "Nazwisko", "E-mailadres", "Bedrijf", "Domein"],
      { firstName: 0, lastName: 1, email: 2, company: 3, website: 4 },
    ],
  ];
  for (const [language, header, expected] of cases) {
    it(`maps a ${language} header row`, () => {
      assert.deepEqual(mapHeader(header), expected);
    });
  }

  it("takes the first of two matching columns and lets an explicit mapping override", () => {
    assert.equal(mapHeader(["email", "e-mail"]).email, 0);
    assert.equal(mapHeader(["email", "Work mail"], { email: "work MAIL" }).email, 1);
  });

  it("leaves our own and unknown columns unmapped", () => {
    assert.deepEqual(mapHeader(["Notes", "leadcheck_status", "Owner"]), {});
  });
});
