// Every migration, in order. Names are permanent once released: add new ones at the end.
import type { Migration } from "kysely";
import * as m0001 from "./0001-foundation.js";

export const migrations: Record<string, Migration> = {
  "0001-foundation": m0001,
};
