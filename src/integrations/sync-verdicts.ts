// Our five write-back values from a lead. A value we do not know (never validated, a check that
// could not finish) is the word `unknown`, never an empty cell or a false value.
import type { LeadView } from "../leads/leads.schemas.js";
import type { VerdictCells } from "./sheet-write-plan.js";

const UNKNOWN = "unknown";

export function verdictCells(lead: LeadView): VerdictCells {
  const validated = lead.validatedAt !== null;
  const status = ["valid", "invalid", "risky"].includes(lead.validationStatus)
    ? lead.validationStatus
    : UNKNOWN;
  return [
    validated ? status : UNKNOWN,
    validated ? (lead.emailReason ?? UNKNOWN) : UNKNOWN,
    validated ? String(lead.leadDeliverabilityRating) : UNKNOWN,
    validated ? (lead.leadRecommendation ?? UNKNOWN) : UNKNOWN,
    lead.validatedAt ?? UNKNOWN,
  ];
}

export const HUBSPOT_PROPERTIES = [
  { name: "leadcheck_status", label: "leadcheck status", type: "string" as const },
  { name: "leadcheck_reason", label: "leadcheck reason", type: "string" as const },
  { name: "leadcheck_score", label: "leadcheck score", type: "string" as const },
  { name: "leadcheck_recommendation", label: "leadcheck recommendation", type: "string" as const },
  { name: "leadcheck_verified_at", label: "leadcheck verified at", type: "string" as const },
];

export function hubspotProperties(lead: LeadView): Record<string, string> {
  const cells = verdictCells(lead);
  return Object.fromEntries(HUBSPOT_PROPERTIES.map((p, i) => [p.name, cells[i]!]));
}
