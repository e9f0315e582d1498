// Write-back of a sync's verdicts. Sheets: the sheet is re-read before every chunk, our columns
// are found (or added) by header, rows are matched by email, and one values.batchUpdate writes
// the chunk's cells of our columns and nothing else. HubSpot: the `leadcheck` group and our five
// properties are created idempotently, then batch/update writes at most 100 contacts at a time,
// only our properties, never an empty value. Items are marked written after each chunk, so a
// resumed pass writes only what is left; and what an attempt sent just before it died (written,
// never recorded) is found already in place and not sent again: a sheet row that shows its
// verdict on the re-read, a contact (marked in flight before its batch is sent) whose properties
// read back equal. So each row or contact gets its verdict written once, even across a kill -9.

import type { LeadView } from "../leads/leads.schemas.js";
import type { LeadsService } from "../leads/leads.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import type { SyncItemsTable, SyncsTable } from "../storage/schema.js";
import type { SheetsGateway } from "./google-sheets.gateway.js";
import type { HubSpotGateway } from "./hubspot.gateway.js";
import type { IntegrationsRepo } from "./integrations.repo.js";
import type { SyncCountsView } from "./integrations.schemas.js";
import { RemoteError } from "./remote-error.js";
import { mapHeader } from "./sheet-mapping.js";
import { planSheetWrite, quoteSheet, type SheetWrite } from "./sheet-write-plan.js";
import { HUBSPOT_PROPERTIES, hubspotProperties, verdictCells } from "./sync-verdicts.js";
import type { SyncParams } from "./syncs.service.js";

export interface SyncState {
  sync: SyncsTable;
  params: SyncParams;
  counts: SyncCountsView;
  errors: { item: string; message: string }[];
  save(changes: Partial<SyncsTable>): Promise<void>;
  addError(item: string, message: string): void;
}

interface WriteDeps {
  database: Database;
  repo: IntegrationsRepo;
  leads: LeadsService;
  clock: Clock;
  /** Rows per values.batchUpdate (SYNC_SHEET_WRITE_ROWS). */
  sheetWriteRows: number;
  /** Aborted when the job's attempt expires: stop between chunks, never in the middle of one. */
  signal?: AbortSignal;
}

const HUBSPOT_BATCH = 100;

async function pending(deps: WriteDeps, sync: SyncsTable) {
  const items = (await deps.repo.items(deps.database.db, sync.id)).filter((i) => i.written !== 1);
  const leads = await deps.leads.getMany(sync.account_id, [...new Set(items.map((i) => i.lead_id))]);
  return { items, leadById: new Map<string, LeadView>(leads.map((l) => [l.id, l])) };
}

async function markWritten(deps: WriteDeps, state: SyncState, items: SyncItemsTable[]) {
  await deps.repo.markWritten(
    deps.database.db,
    state.sync.id,
    items.map((i) => i.item_key),
  );
  await deps.leads.markSynced(
    state.sync.account_id,
    [...new Set(items.map((i) => i.lead_id))],
    deps.clock.now(),
  );
}

export async function writeSheet(state: SyncState, deps: WriteDeps, gateway: SheetsGateway): Promise<void> {
  const { spreadsheetId, sheet, mapping } = state.params as Required<
    Pick<SyncParams, "spreadsheetId" | "sheet">
  > &
    SyncParams;
  const chunkRows = deps.sheetWriteRows;
  for (;;) {
    deps.signal?.throwIfAborted();
    const { items, leadById } = await pending(deps, state.sync);
    if (items.length === 0) return;
    const byKey = new Map(items.map((i) => [i.item_key, i]));
    // Re-read just before writing: rows inserted or sorted since the import are found by email.
    const rows = await gateway.values(spreadsheetId, `${quoteSheet(sheet)}!A1:ZZ`);
    const emailColumn = mapHeader(rows[0] ?? [], mapping).email;
    if (emailColumn === undefined) throw new RemoteError("refused", `the email column of ${sheet} is gone`);
    const plan = planSheetWrite(sheet, rows, emailColumn, (email) => {
      const item = byKey.get(email.toLowerCase());
      const lead = item && leadById.get(item.lead_id);
      return lead ? verdictCells(lead) : undefined;
    });
    const chunk = plan.rows.slice(0, chunkRows);
    const keys = new Set(chunk.map((r) => r.email.toLowerCase()));
    const done = items.filter((i) => keys.has(i.item_key));
    // Rows already showing their verdict were written by an attempt that died before recording
    // it: they count as written and are not sent again.
    const toSend = chunk.filter((r) => !r.holds);
    if (toSend.length > 0) {
      const data: SheetWrite[] = [...(plan.header ? [plan.header] : []), ...toSend.flatMap((r) => r.writes)];
      await gateway.write(spreadsheetId, data);
    }
    state.counts.written += chunk.length;
    // Items whose row is no longer in the sheet (deleted meanwhile) are not written anywhere.
    const gone = chunk.length < chunkRows ? items.filter((i) => !keys.has(i.item_key)) : [];
    for (const item of gone)
      state.addError(item.item_key, "row not found in the sheet at write time; not written");
    await markWritten(deps, state, [...done, ...gone]);
    await state.save({});
  }
}

export async function writeHubSpot(
  state: SyncState,
  deps: WriteDeps,
  gateway: HubSpotGateway,
): Promise<void> {
  await gateway.ensureProperties(HUBSPOT_PROPERTIES);
  const { items, leadById } = await pending(deps, state.sync);
  const inputFor = (item: SyncItemsTable) => {
    const lead = leadById.get(item.lead_id);
    return lead ? { id: item.item_key, properties: hubspotProperties(lead) } : undefined;
  };
  const landed = await alreadyWritten(
    gateway,
    items.filter((i) => i.written === 2),
    inputFor,
  );
  if (landed.length > 0) {
    state.counts.written += landed.length;
    await markWritten(deps, state, landed);
    await state.save({});
  }
  const rest = items.filter((i) => !landed.includes(i));
  for (let i = 0; i < rest.length; i += HUBSPOT_BATCH) {
    deps.signal?.throwIfAborted();
    const chunk = rest.slice(i, i + HUBSPOT_BATCH);
    const inputs = chunk.flatMap((item) => inputFor(item) ?? []);
    // In flight: if this attempt dies before recording the chunk, the next one reads it back.
    await deps.repo.markWritten(
      deps.database.db,
      state.sync.id,
      chunk.map((c) => c.item_key),
      2,
    );
    let written = inputs.length;
    try {
      await gateway.update(inputs);
    } catch (error) {
      if (!(error instanceof RemoteError) || error.kind !== "refused") throw error;
      // A contact deleted mid-sync makes HubSpot refuse the batch whole: find who is left.
      const alive = new Set(
        (
          await gateway.readContacts(
            inputs.map((x) => x.id),
            ["email"],
          )
        ).map((c) => c.id),
      );
      for (const input of inputs)
        if (!alive.has(input.id))
          state.addError(`contact ${input.id}`, "contact deleted during the sync; not written");
      const left = inputs.filter((x) => alive.has(x.id));
      if (left.length > 0) await gateway.update(left);
      written = left.length;
    }
    state.counts.written += written;
    await markWritten(deps, state, chunk);
    await state.save({});
  }
}

/** Items sent by an attempt that died before recording them, whose contact already holds exactly
 *  our values (one batch read per 100; a deleted contact or other values: sent again). */
async function alreadyWritten(
  gateway: HubSpotGateway,
  inFlight: SyncItemsTable[],
  inputFor: (item: SyncItemsTable) => { id: string; properties: Record<string, string> } | undefined,
): Promise<SyncItemsTable[]> {
  const names = HUBSPOT_PROPERTIES.map((p) => p.name);
  const landed: SyncItemsTable[] = [];
  for (let i = 0; i < inFlight.length; i += HUBSPOT_BATCH) {
    const chunk = inFlight.slice(i, i + HUBSPOT_BATCH);
    const contacts = new Map(
      (
        await gateway.readContacts(
          chunk.map((c) => c.item_key),
          names,
        )
      ).map((c) => [c.id, c.properties]),
    );
    for (const item of chunk) {
      const wanted = inputFor(item)?.properties;
      const held = contacts.get(item.item_key);
      if (wanted && held && names.every((name) => held[name] === wanted[name])) landed.push(item);
    }
  }
  return landed;
}
