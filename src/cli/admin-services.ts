// What the admin commands (`leadcheck keys create`, `credits grant`) need, and nothing more: the
// database (migrated), the events outbox and audit trail their writes record to, keys and credits.
// No Redis, DNS, domain intelligence or job queue: they are opened by serve and worker only.
import { createKeys } from "../accounts/create-accounts.js";
import { createAudit } from "../audit/create-audit.js";
import type { Config } from "../config/config.js";
import { createCredits } from "../credits/create-billing.js";
import { EventBus } from "../events/events.js";
import { EventsRepo } from "../events/events.repo.js";
import { systemClock } from "../lib/clock.js";
import { migrateToLatest, openDatabase } from "../storage/db.js";

export async function createAdminServices(config: Readonly<Config>) {
  const database = openDatabase(config.databaseUrl, { maxConnections: 2 });
  await migrateToLatest(database.db);
  const clock = systemClock;
  const events = new EventBus(new EventsRepo());
  const { audit } = createAudit({ database, clock }).services;
  return {
    database,
    keys: createKeys({ config, database, clock, audit }),
    credits: createCredits({ config, database, events, clock, audit }),
    close: () => database.close(),
  };
}
