// One lead: its fields, the email and website results, and the rating factors that explain its
// score (as the API computed them).
import type { ReactNode } from "react";
import { useApi, useLoader } from "../api.js";
import { ErrorMessage, formatDate, formatNumber, Loading, yesNo } from "../components/ui.js";
import { labelOf, RECOMMENDATION, SOURCE, VALIDATION_STATUS } from "../labels.js";
import { Link } from "../router.js";
import { Rating } from "./leads.js";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === "" ? "—" : children}</dd>
    </div>
  );
}

export function LeadPage({ leadId }: { leadId: string }) {
  const { client } = useApi();
  const lead = useLoader((_api, signal) => client.leads.get(leadId, { signal }), [leadId]);

  return (
    <section aria-labelledby="lead-title">
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <ErrorMessage error={lead.error} />
      {lead.loading && !lead.data ? <Loading what="the lead" /> : null}
      {lead.data ? <LeadDetails lead={lead.data} /> : null}
    </section>
  );
}

type Lead = Awaited<ReturnType<ReturnType<typeof useApi>["client"]["leads"]["get"]>>;

function LeadDetails({ lead }: { lead: Lead }) {
  const name = [lead.firstName, lead.lastName].filter(Boolean).join(" ");
  return (
    <>
      <h1 id="lead-title" data-testid="lead-email">
        {lead.email}
      </h1>
      <div className="panel rating-panel" data-testid="lead-rating">
        <div className="big-rating">
          <Rating value={lead.leadDeliverabilityRating} />
          <span className="muted"> of 100</span>
        </div>
        <div>
          <div>
            Band: <strong>{lead.leadQuality}</strong>
          </div>
          <div>
            Recommendation:{" "}
            <span className={`tag rec-${lead.leadRecommendation}`}>
              {labelOf(RECOMMENDATION, lead.leadRecommendation)}
            </span>
          </div>
          <div>
            Status: <strong>{labelOf(VALIDATION_STATUS, lead.validationStatus)}</strong>
            {lead.validatedAt ? (
              <span className="muted"> · validated {formatDate(lead.validatedAt)}</span>
            ) : null}
          </div>
        </div>
      </div>

      <h2>Why this rating</h2>
      {lead.ratingFactors.length === 0 ? (
        <p className="muted" data-testid="no-factors">
          No factors yet: the lead has not been validated.
        </p>
      ) : (
        <table data-testid="rating-factors">
          <caption className="visually-hidden">Rating factors</caption>
          <thead>
            <tr>
              <th scope="col">Factor</th>
              <th scope="col" className="num">
                Points
              </th>
            </tr>
          </thead>
          <tbody>
            {lead.ratingFactors.map((f) => (
              <tr key={f.code} data-testid="rating-factor">
                <td>
                  {f.label} <code className="muted">{f.code}</code>
                </td>
                <td className={`num ${f.points < 0 ? "neg" : "pos"}`}>
                  {f.points > 0 ? "+" : ""}
                  {f.points}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <div className="columns">
        <section aria-labelledby="email-title">
          <h2 id="email-title">Email</h2>
          <dl className="fields" data-testid="email-results">
            <Field label="Deliverable">{yesNo(lead.emailValid)}</Field>
            <Field label="Score">{lead.emailScore}</Field>
            <Field label="Risk">{lead.emailRisk}</Field>
            <Field label="Type">{lead.emailType}</Field>
            <Field label="Provider">{lead.emailService}</Field>
            <Field label="Catch-all domain">{yesNo(lead.emailCatchAll)}</Field>
            <Field label="Disposable">{yesNo(lead.emailDisposable)}</Field>
          </dl>
        </section>
        <section aria-labelledby="website-title">
          <h2 id="website-title">Website</h2>
          <dl className="fields" data-testid="website-results">
            <Field label="Website">{lead.website}</Field>
            <Field label="Score">{lead.domainScore}</Field>
            <Field label="HTTP status">{lead.domainHttpStatus}</Field>
            <Field label="Final URL">{lead.domainFinalUrl}</Field>
            <Field label="Valid TLS">{yesNo(lead.domainSslValid)}</Field>
            <Field label="Parked">{yesNo(lead.domainParked)}</Field>
            <Field label="Response time">
              {lead.domainResponseTimeMs === null ? null : `${formatNumber(lead.domainResponseTimeMs)} ms`}
            </Field>
          </dl>
        </section>
      </div>

      <h2>Details</h2>
      <dl className="fields two" data-testid="lead-fields">
        <Field label="Name">{name}</Field>
        <Field label="Company">{lead.company}</Field>
        <Field label="Title">{lead.title}</Field>
        <Field label="Phone">{lead.phone}</Field>
        <Field label="LinkedIn">{lead.linkedIn}</Field>
        <Field label="Twitter">{lead.twitter}</Field>
        <Field label="Category">
          {[lead.leadServiceCategory, lead.leadServiceSubcategory].filter(Boolean).join(" / ")}
        </Field>
        <Field label="Campaign">{lead.campaign}</Field>
        <Field label="Tags">{lead.tags.join(", ")}</Field>
        <Field label="Priority">{lead.priority}</Field>
        <Field label="Active">{yesNo(lead.status)}</Field>
        <Field label="Source">{labelOf(SOURCE, lead.source)}</Field>
        <Field label="Created">{formatDate(lead.created)}</Field>
        <Field label="Updated">{formatDate(lead.updated)}</Field>
        <Field label="Notes">{lead.notes}</Field>
        {Object.entries(lead.customFields).map(([key, value]) => (
          <Field key={key} label={key}>
            {typeof value === "string" ? value : JSON.stringify(value)}
          </Field>
        ))}
      </dl>
    </>
  );
}
