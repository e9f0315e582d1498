// Wires the keys and accounts module: API keys (with their cache where every revocation is seen),
// identity tokens, dashboard sign-in links and single sign-on.
import type { Redis } from "ioredis";
import type { AuditTrail } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import { KeyCache, LocalRevocationBoard, RedisRevocationBoard } from "../keys/key-cache.js";
import { KeysRepo } from "../keys/keys.repo.js";
import { KeysService } from "../keys/keys.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { IdentityVerifier } from "./identity.js";
import { SigninService } from "./signin.service.js";
import { SigninTokensRepo } from "./signin-tokens.repo.js";
import { SsoRepo } from "./sso.repo.js";
import { SsoService } from "./sso.service.js";

export interface AccountsModuleDeps {
  config: Pick<Config, "auth" | "oidc" | "payments" | "port">;
  database: Database;
  clock: Clock;
  audit: AuditTrail;
  redis: Redis | undefined;
}

export interface AccountsServices {
  keys: KeysService;
  identity: IdentityVerifier;
  signin: SigninService;
  sso: SsoService;
}

export function createAccounts(deps: AccountsModuleDeps): Module<AccountsServices> {
  const { config, database, clock } = deps;
  return {
    services: {
      keys: createKeys(deps),
      identity: new IdentityVerifier(config.auth),
      signin: new SigninService(database.db, new SigninTokensRepo(), {
        secret: config.auth.jwtSecret,
        issuer: config.auth.issuer,
        audience: config.auth.audience,
        clock,
      }),
      sso: new SsoService(
        {
          ...config.oidc,
          redirectUrl:
            config.oidc.redirectUrl ??
            `${(config.payments.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, "")}/v1/auth/sso/callback`,
        },
        database.db,
        new SsoRepo(),
        clock,
      ),
    },
    jobs: [],
  };
}

/** The keys service alone (the admin CLI: no Redis, so no cache). Known keys skip their database
 *  read only where every instance sees every revocation: through Redis, or on embedded SQLite,
 *  whose one process makes them all. */
export function createKeys(
  deps: Pick<AccountsModuleDeps, "database" | "clock" | "audit"> & {
    config: Pick<Config, "auth">;
    redis?: Redis | undefined;
  },
): KeysService {
  const { database, clock, redis } = deps;
  const board = redis
    ? new RedisRevocationBoard(redis)
    : database.kind === "sqlite"
      ? new LocalRevocationBoard(() => clock.now().getTime())
      : undefined;
  const cache =
    board && deps.config.auth.keyCacheTtlMs > 0
      ? new KeyCache(board, { ttlMs: deps.config.auth.keyCacheTtlMs, maxEntries: 10_000 })
      : undefined;
  return new KeysService(new KeysRepo(), database, clock, cache, deps.audit);
}
