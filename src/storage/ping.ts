// The readiness probes' database check: one round trip, no table touched.
import { sql } from "kysely";
import type { Db } from "./db.js";

/** True when the database answers a trivial query; false on any error (down, pool exhausted). */
export function isDatabaseReachable(db: Db): Promise<boolean> {
  return sql`select 1 as ok`.execute(db).then(
    () => true,
    () => false,
  );
}
