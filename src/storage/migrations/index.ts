// Every migration, in order. Names are permanent once released: add new ones at the end.
import type { Migration } from "kysely";
import * as m0001 from "./0001-foundation.js";
import * as m0002 from "./0002-jobs.js";
import * as m0003 from "./0003-leads-batches.js";
import * as m0004 from "./0004-webhooks.js";
import * as m0005 from "./0005-signin.js";
import * as m0006 from "./0006-email-reason.js";
import * as m0007 from "./0007-lead-parked-evidence.js";
import * as m0008 from "./0008-domain-intel.js";
import * as m0009 from "./0009-job-lifecycle.js";
import * as m0010 from "./0010-lead-search-tags.js";
import * as m0011 from "./0011-payments.js";
import * as m0012 from "./0012-lead-search-deferred.js";
import * as m0013 from "./0013-rerate-leads.js";
import * as m0014 from "./0014-checkout-sessions.js";
import * as m0030 from "./0030-integrations.js";
import * as m0031 from "./0031-lead-external-source.js";
import * as m0032 from "./0032-sync-watches.js";
import * as m0033 from "./0033-revalidation.js";
import * as m0034 from "./0034-hubspot-portal.js";
import * as m0035 from "./0035-partial-validated-index.js";
import * as m0040 from "./0040-audit-log.js";
import * as m0041 from "./0041-data-lifecycle.js";
import * as m0050 from "./0050-key-policies.js";
import * as m0052 from "./0052-widget-stats.js";
import * as m0060 from "./0060-teams.js";
import * as m0061 from "./0061-sso-sessions.js";

export const migrations: Record<string, Migration> = {
  "0001-foundation": m0001,
  "0002-jobs": m0002,
  "0003-leads-batches": m0003,
  "0004-webhooks": m0004,
  "0005-signin": m0005,
  "0006-email-reason": m0006,
  "0007-lead-parked-evidence": m0007,
  "0008-domain-intel": m0008,
  "0009-job-lifecycle": m0009,
  "0010-lead-search-tags": m0010,
  "0011-payments": m0011,
  "0012-lead-search-deferred": m0012,
  "0013-rerate-leads": m0013,
  "0014-checkout-sessions": m0014,
  "0030-integrations": m0030,
  "0031-lead-external-source": m0031,
  "0032-sync-watches": m0032,
  "0033-revalidation": m0033,
  "0034-hubspot-portal": m0034,
  "0035-partial-validated-index": m0035,
  "0050-key-policies": m0050,
  "0040-audit-log": m0040,
  "0041-data-lifecycle": m0041,
  "0060-teams": m0060,
  "0061-sso-sessions": m0061,
  "0052-widget-stats": m0052,
};
