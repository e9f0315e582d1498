// What a repository method runs its statements on: the database, or the caller's transaction when
// the write must commit or roll back with the caller's other writes. Always a repository method's
// first parameter.
import type { Kysely, Transaction } from "kysely";
import type { Schema } from "./schema.js";

export type Executor = Kysely<Schema> | Transaction<Schema>;
