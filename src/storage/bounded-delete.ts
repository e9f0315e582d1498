// Purges of old rows in bounded steps: the caller reads the ids of at most a chunk of doomed rows
// (its own conditions, its own index), then they are deleted by primary key, so that no statement
// runs long or locks much of a large table.
import type { Executor } from "./executor.js";

/** Deletes the rows of `table` whose ids `doomed` lists; returns how many it was given. */
export async function deleteSelected(
  db: Executor,
  table: "events" | "webhook_deliveries",
  doomed: readonly { id: string }[],
): Promise<number> {
  if (doomed.length === 0) return 0;
  await db
    .deleteFrom(table)
    .where(
      "id",
      "in",
      doomed.map((row) => row.id),
    )
    .execute();
  return doomed.length;
}
