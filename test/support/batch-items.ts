// A pending item row of a domain batch: storage tests fill a real table with many of them.
import type { BatchItemsTable } from "../../src/storage/schema.js";

export const pendingItem = (batchId: string, seq: number, accountId = "acct_storage"): BatchItemsTable => ({
  id: `item_${batchId}_${String(seq).padStart(6, "0")}`,
  batch_id: batchId,
  account_id: accountId,
  seq,
  lead_id: null,
  input: `site-${seq}.test`,
  group_key: `site-${seq}.test`,
  status: "pending",
  verdict: null,
  result: null,
  error: null,
  completed_at: null,
});
