// Where a sync's items come from: a sheet's rows (header mapped to lead fields) or HubSpot
// contacts (a list's members read in batches of 100, or all contacts a page at a time). Each
// page names the cursor that reads the next one, so a pass resumes where it stopped.
import type { SyncedLeadItem } from "../leads/leads.service.js";
import type { SheetsGateway } from "./google-sheets.gateway.js";
import type { HubSpotContact, HubSpotGateway } from "./hubspot.gateway.js";
import { RemoteError } from "./remote-error.js";
import { type HeaderMapping, type LeadField, mapHeader } from "./sheet-mapping.js";
import { quoteSheet } from "./sheet-write-plan.js";

export interface SourceItem {
  /** Where it is in the source, for error reports ("row 5", "contact 1001"). */
  label: string;
  /** The sync item's key: the lower-cased email (sheets) or the contact id (HubSpot). */
  key: string | null;
  lead: SyncedLeadItem;
}

export interface SourcePage {
  items: SourceItem[];
  /** null: this was the last page. */
  next: string | null;
}

const SHEET_PAGE_ROWS = 2000;

/** The whole sheet in one values.get (one read request of the per-user quota). */
export function readSheet(gateway: SheetsGateway, spreadsheetId: string, sheet: string): Promise<string[][]> {
  return gateway.values(spreadsheetId, `${quoteSheet(sheet)}!A1:ZZ`);
}

/** The page of rows after `cursor` (a row index; null: the first data row). */
export function sheetPage(
  rows: string[][],
  spreadsheetId: string,
  sheet: string,
  explicit: Partial<Record<string, string>> | undefined,
  cursor: string | null,
): SourcePage {
  const mapping = mapHeader(rows[0] ?? [], explicit);
  if (mapping.email === undefined)
    throw new RemoteError(
      "refused",
      `no email column in the header row of ${sheet} (${(rows[0] ?? []).join(", ") || "empty"})`,
    );
  const start = cursor === null ? 1 : Number(cursor);
  const end = Math.min(rows.length, start + SHEET_PAGE_ROWS);
  const items: SourceItem[] = [];
  for (let r = start; r < end; r++) {
    const input = rowInput(rows[r] ?? [], mapping);
    const email = input.email;
    if (!email) continue;
    items.push({
      label: `row ${r + 1}`,
      key: email.toLowerCase(),
      lead: { input: { ...input, email }, externalId: `${spreadsheetId}!${sheet}` },
    });
  }
  return { items, next: end < rows.length ? String(end) : null };
}

export function rowInput(row: string[], mapping: HeaderMapping) {
  const value = (field: LeadField) => {
    const column = mapping[field];
    const text = column === undefined ? "" : (row[column] ?? "").trim();
    return text === "" ? undefined : text;
  };
  const input: Record<string, string> = {};
  for (const field of ["email", "website", "firstName", "lastName", "company", "title", "phone"] as const) {
    const text = value(field);
    if (text !== undefined) input[field] = text;
  }
  return input as { email?: string } & Record<string, string>;
}

export async function readHubSpotPage(
  gateway: HubSpotGateway,
  listId: string | undefined,
  cursor: string | null,
  /** A watch's pass over all contacts: only those modified since (search on lastmodifieddate). */
  sinceMs: number | null = null,
  /** The connection's HubSpot portal, recorded with each lead for the link to its record. */
  portalId: string | null = null,
): Promise<SourcePage> {
  let contacts: HubSpotContact[];
  let next: string | undefined;
  if (!listId && sinceMs !== null) {
    const page = await gateway.modifiedSince(sinceMs, cursor ?? undefined);
    contacts = page.contacts;
    next = page.next;
  } else if (listId) {
    const members = await gateway.listMembers(listId, cursor ?? undefined);
    contacts = await gateway.readContacts(members.ids);
    next = members.next;
  } else {
    const page = await gateway.contactsPage(cursor ?? undefined);
    contacts = page.contacts;
    next = page.next;
  }
  return { items: contacts.map((contact) => contactItem(contact, portalId)), next: next ?? null };
}

/** Lead field -> the HubSpot contact property it is read from. */
export const CONTACT_FIELD_PAIRS: [string, string][] = [
  ["email", "email"],
  ["firstName", "firstname"],
  ["lastName", "lastname"],
  ["company", "company"],
  ["title", "jobtitle"],
  ["phone", "phone"],
  ["website", "website"],
];

export function contactItem(contact: HubSpotContact, portalId: string | null = null): SourceItem {
  const p = contact.properties;
  const input: Record<string, string> = {};
  for (const [field, property] of CONTACT_FIELD_PAIRS) {
    const text = p[property]?.trim();
    if (text) input[field] = text;
  }
  return {
    label: `contact ${contact.id}`,
    key: contact.id,
    lead: { input: input as never, externalId: contact.id, externalAccount: portalId },
  };
}
