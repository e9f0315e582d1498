// The mapping preview (issue 26): what a sync of a sheet or a HubSpot source would read, how its
// columns map to lead fields, its first 5 rows or contacts, and what its validation would cost,
// before anything is written. Google: the tabs and the whole sheet (two calls; the sync reads the
// same), planned against the account's leads, so the cost is exact. HubSpot: one search (the
// total and the first 5) or a list's members counted (up to 40 pages of 250): an upper bound.
import type { LeadsService } from "../leads/leads.service.js";
import { fail, notFound } from "../lib/errors.js";
import type { ConnectionsService, GatewayFactory } from "./connections.service.js";
import type { HubSpotContact } from "./hubspot.gateway.js";
import type { PreviewInput, SyncPreviewView } from "./integrations.schemas.js";
import { RemoteError } from "./remote-error.js";
import { LEAD_FIELDS, mapHeader } from "./sheet-mapping.js";
import { quoteSheet } from "./sheet-write-plan.js";
import { CONTACT_FIELD_PAIRS, contactItem, rowInput, type SourceItem } from "./sync-sources.js";
import { invalidSource, needsReauth } from "./syncs.service.js";

const SHOWN = 5;
const LIST_PAGES = 40;

export interface SyncPreviewDeps {
  connections: ConnectionsService;
  gateways: GatewayFactory;
  leads: Pick<LeadsService, "planSynced">;
  /** Milli-credits of one lead validation. */
  priceMilli: number;
}

export class SyncPreviewService {
  constructor(private readonly deps: SyncPreviewDeps) {}

  /** What a sync would read. Throws not_found (no such live connection), conflict (it needs to be
   *  connected again; a token refused now sets that), invalid (the body or the source: no such
   *  sheet or list) or unavailable (the remote's limits or errors outlasted the retries). */
  async preview(accountId: string, connectionId: string, input: PreviewInput): Promise<SyncPreviewView> {
    const found = await this.deps.connections.credentials(accountId, connectionId);
    if (!found) throw notFound("Connection");
    if (found.row.status !== "active") throw needsReauth(found.row.status_reason);
    const { credentials } = found;
    if (credentials.kind === "google_sheets") {
      if (!input.spreadsheetId)
        throw invalidSource("spreadsheetId", "a Google Sheets preview needs spreadsheetId", "source");
      if (input.listId) throw invalidSource("listId", "listId is for HubSpot connections", "source");
    } else if (input.spreadsheetId || input.sheet || input.mapping) {
      throw invalidSource("spreadsheetId", "a HubSpot preview takes listId only", "source");
    }
    try {
      return credentials.kind === "google_sheets"
        ? await this.sheet(accountId, this.deps.gateways.sheets(credentials), input)
        : await this.hubspot(credentials.accessToken, input.listId);
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      if (error.kind === "auth") {
        await this.deps.connections.setStatus(connectionId, "needs_reauth", error.message);
        throw needsReauth(error.message);
      }
      if (error.kind === "unavailable")
        throw fail({ kind: "unavailable", message: error.message, retryAfterSeconds: 30 });
      throw invalidSource(
        credentials.kind === "hubspot" ? "listId" : "spreadsheetId",
        error.message,
        "source",
      );
    }
  }

  private async sheet(
    accountId: string,
    gateway: ReturnType<GatewayFactory["sheets"]>,
    input: PreviewInput,
  ): Promise<SyncPreviewView> {
    const spreadsheetId = input.spreadsheetId!;
    const info = await gateway.spreadsheet(spreadsheetId);
    const tabs = info.sheets.map((s) => s.title);
    const sheet = input.sheet ?? tabs[0];
    if (sheet === undefined || !tabs.includes(sheet))
      throw new RemoteError(
        "not_found",
        `no tab named ${sheet ?? "(none)"} in this spreadsheet (${tabs.join(", ")})`,
      );
    const rows = await gateway.values(spreadsheetId, `${quoteSheet(sheet)}!A1:ZZ`);
    const header = rows[0] ?? [];
    const mapping = mapHeader(header, input.mapping);
    const items: SourceItem[] = [];
    let noEmail = 0;
    for (let r = 1; r < rows.length; r++) {
      const lead = rowInput(rows[r] ?? [], mapping);
      if (!lead.email) {
        if ((rows[r] ?? []).some((cell) => cell.trim() !== "")) noEmail++;
        continue;
      }
      items.push({
        label: `row ${r + 1}`,
        key: lead.email.toLowerCase(),
        lead: { input: { ...lead, email: lead.email }, externalId: "" },
      });
    }
    const plan =
      mapping.email === undefined
        ? null
        : await this.deps.leads.planSynced(
            accountId,
            items.map((i) => i.lead),
          );
    const shownMapping: Record<string, string | null> = {};
    for (const field of LEAD_FIELDS) {
      const column = mapping[field];
      shownMapping[field] = column === undefined ? null : (header[column] ?? null);
    }
    return {
      kind: "google_sheets",
      sheets: tabs,
      sheet,
      columns: header,
      mapping: shownMapping,
      rows: items
        .slice(0, SHOWN)
        .map((i) => ({ item: i.label, lead: i.lead.input as unknown as Record<string, string> })),
      total: items.length,
      totalExact: true,
      plan: plan ? { created: plan.created, matched: plan.matched, skipped: plan.skipped + noEmail } : null,
      cost: this.cost(plan?.toValidate ?? 0, "exact"),
    };
  }

  private async hubspot(accessToken: string, listId: string | undefined): Promise<SyncPreviewView> {
    const gateway = this.deps.gateways.hubspot(accessToken);
    let total: number;
    let exact = true;
    let shown: HubSpotContact[];
    if (listId) {
      const members = await gateway.countListMembers(listId, LIST_PAGES);
      total = members.count;
      exact = members.exact;
      shown = await gateway.readContacts(members.first);
    } else {
      const first = await gateway.firstContacts(SHOWN);
      total = first.total;
      shown = first.contacts;
    }
    const mapping: Record<string, string | null> = {};
    for (const [field, property] of CONTACT_FIELD_PAIRS) mapping[field] = property;
    return {
      kind: "hubspot",
      sheets: null,
      sheet: null,
      columns: CONTACT_FIELD_PAIRS.map(([, property]) => property),
      mapping,
      rows: shown.slice(0, SHOWN).map((contact) => {
        const item = contactItem(contact);
        return { item: item.label, lead: item.lead.input as unknown as Record<string, string> };
      }),
      total,
      totalExact: exact,
      plan: null,
      cost: this.cost(total, exact ? "at_most" : "at_least"),
    };
  }

  private cost(leads: number, basis: "exact" | "at_most" | "at_least") {
    const milli = leads * this.deps.priceMilli;
    return { leads, credits: milli / 1000, displayCredits: milli, basis };
  }
}
