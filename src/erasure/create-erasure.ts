// Wires the erasure module: its repository and service (no jobs: the scrub runs after the commit).
import type { AuditTrail } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { ErasureRepo } from "./erasure.repo.js";
import { ErasureService } from "./erasure.service.js";

export interface ErasureModuleDeps {
  config: Pick<Config, "privacy">;
  database: Database;
  clock: Clock;
  audit: AuditTrail;
}

export function createErasure(deps: ErasureModuleDeps): Module<{ erasure: ErasureService }> {
  return {
    jobs: [],
    services: {
      erasure: new ErasureService({
        database: deps.database,
        clock: deps.clock,
        repo: new ErasureRepo(),
        audit: deps.audit,
        hmacKey: deps.config.privacy.hmacKey,
      }),
    },
  };
}
