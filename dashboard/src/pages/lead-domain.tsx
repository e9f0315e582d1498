// The lead's domain facts (ADR 0012): registration, block lists, mail records, certificate and the
// typo suggestion. Their points are in the rating factors above; this shows the facts behind them.
import type { ReactNode } from "react";
import type { Lead } from "../../../sdk/src/api-types.js";
import { formatDate, yesNo } from "../components/ui.js";
import { labelOf, REGISTRATION, REGISTRATION_REASON, REPUTATION } from "../labels.js";

/** The lead fields this section reads (the SDK's generated Lead type). */
export type LeadWithDomainFacts = Pick<Lead, "didYouMean" | "domainFacts">;

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === "" ? "—" : children}</dd>
    </div>
  );
}

const record = (status: string, detail: string | null) =>
  status === "present" ? (detail ?? "present") : status === "absent" ? "none" : "unknown";

export function DomainFactsSection({ lead }: { lead: LeadWithDomainFacts }) {
  const f = lead.domainFacts;
  if (!f && !lead.didYouMean) return null;
  return (
    <section aria-labelledby="domain-title">
      <h2 id="domain-title">Domain{f ? ` (${f.domain})` : ""}</h2>
      <dl className="fields two" data-testid="domain-facts">
        {lead.didYouMean ? <Fact label="Did you mean">{lead.didYouMean}</Fact> : null}
        {f ? (
          <>
            <Fact label="Registered">
              {f.registeredAt
                ? `${formatDate(f.registeredAt)} (${f.ageDays} days ago)`
                : `${labelOf(REGISTRATION, f.registration)}${f.registrationReason ? `: ${labelOf(REGISTRATION_REASON, f.registrationReason)}` : ""}`}
            </Fact>
            <Fact label="Registrar">{f.registrar}</Fact>
            <Fact label="Expires">{f.expiresAt ? formatDate(f.expiresAt) : null}</Fact>
            <Fact label="Block lists">
              {f.listings.length > 0
                ? f.listings.map((l) => `${l.zone}: ${l.meaning ?? "listed"} (${l.subject})`).join("; ")
                : labelOf(REPUTATION, f.reputation)}
            </Fact>
            <Fact label="SPF">{record(f.spf, f.spfAll)}</Fact>
            <Fact label="DMARC">{record(f.dmarc, f.dmarcPolicy ? `p=${f.dmarcPolicy}` : null)}</Fact>
            <Fact label="Null MX">{yesNo(f.nullMx)}</Fact>
            <Fact label="STARTTLS">{yesNo(f.starttls)}</Fact>
            <Fact label="Certificate">
              {f.certificate
                ? `${f.certificate.issuer ?? "unknown issuer"}, expires in ${f.certificate.daysToExpiry} days${f.certificate.hsts ? ", HSTS" : ""}`
                : null}
            </Fact>
          </>
        ) : null}
      </dl>
    </section>
  );
}
