// SQL of validation jobs used by the stalled-work sweeper.
import type { Kysely, Transaction } from "kysely";
import type { Schema } from "../storage/schema.js";

type Executor = Kysely<Schema> | Transaction<Schema>;

export class ValidationJobsRepo {
  /** Jobs still `processing` whose deadline passed before `cutoff`. */
  async overdueIds(db: Executor, cutoff: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom("validation_jobs")
      .select("id")
      .where("status", "=", "processing")
      .where("deadline_at", "<", cutoff)
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }
}
