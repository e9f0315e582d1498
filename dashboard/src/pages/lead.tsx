// One lead: its verdict and rating ("Not rated" before the first validation), the factors that
// explain the score, the email and website results (with the optional facts other checks add),
// and its actions: validate, edit (a form over PUT with the API's field limits), archive, erase;
// each only for a role that may use it.
import { type FormEvent, type ReactNode, useState } from "react";
import type { Lead, LeadUpdateInput } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { RatingBar, ReasonBadge, RecommendationBadge, Tags, VerdictBadge } from "../components/badges.js";
import { Breakable } from "../components/breakable.js";
import { DidYouMeanFix } from "../components/did-you-mean.js";
import { FactorTable } from "../components/factor-table.js";
import {
  ConfirmDialog,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  plural,
  yesNo,
} from "../components/ui.js";
import { labelOf, SOURCE, VALIDATION_STATUS } from "../labels.js";
import { optionalField } from "../lead-fields.js";
import { useCan } from "../me.js";
import { PRICES } from "../pricing.js";
import { Link, navigate } from "../router.js";
import { DomainFactsSection } from "./lead-domain.js";
import { LeadErase } from "./lead-erase.js";
import { ExternalSource } from "./lead-source.js";

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === "" ? "—" : children}</dd>
    </div>
  );
}

export function LeadPage({ leadId }: { leadId: string }) {
  const { client } = useApi();
  const lead = useLoader((_api, signal) => client.leads.get(leadId, { signal }), [leadId]);
  const [editing, setEditing] = useState(false);

  return (
    <section aria-labelledby="lead-title">
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <ErrorMessage error={lead.error} />
      {lead.loading && !lead.data ? <Loading what="the lead" /> : null}
      {lead.data ? (
        editing ? (
          <EditLead
            lead={lead.data}
            onDone={() => {
              setEditing(false);
              lead.reload();
            }}
          />
        ) : (
          <LeadDetails lead={lead.data} onEdit={() => setEditing(true)} reload={lead.reload} />
        )
      ) : null}
    </section>
  );
}

function LeadActions({ lead, onEdit, reload }: { lead: Lead; onEdit(): void; reload(): void }) {
  const { client, guard } = useApi();
  const can = useCan();
  const [confirming, setConfirming] = useState<"archive" | "validate" | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState("");

  const validate = async () => {
    setConfirming(null);
    setBusy(true);
    setError(null);
    try {
      const started = await guard(client.leads.validate([lead.id]));
      setMessage("Validating…");
      reload();
      await guard(client.waitForBatch(started.batchId, { intervalMs: 1000, timeoutMs: 10 * 60_000 }));
      setMessage("Validated.");
      reload();
    } catch (e) {
      setError(e);
      setMessage("");
    } finally {
      setBusy(false);
    }
  };
  const archive = async () => {
    setConfirming(null);
    setBusy(true);
    setError(null);
    try {
      await guard(client.leads.archive(lead.id));
      navigate("/leads");
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return (
    <>
      <div className="actions lead-actions">
        {can("batches:write") ? (
          <button
            type="button"
            onClick={() => setConfirming("validate")}
            disabled={busy}
            data-testid="lead-validate"
          >
            {lead.validatedAt ? "Validate again" : "Validate"}
          </button>
        ) : null}
        {can("leads:write") ? (
          <>
            <button type="button" onClick={onEdit} disabled={busy} data-testid="lead-edit">
              Edit
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => setConfirming("archive")}
              disabled={busy}
              data-testid="lead-archive"
            >
              Archive
            </button>
          </>
        ) : null}
        {can("data:admin") ? <LeadErase lead={lead} disabled={busy} /> : null}
        <span role="status" className="muted" data-testid="lead-action-status">
          {message}
        </span>
      </div>
      <ErrorMessage error={error} />
      <ConfirmDialog
        open={confirming === "validate"}
        title="Validate this lead?"
        confirmLabel="Validate"
        onCancel={() => setConfirming(null)}
        onConfirm={validate}
      >
        <p>
          Its email and website are checked now: one lead validation,{" "}
          {plural(PRICES.leadValidation, "credit")} at the standard prices.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === "archive"}
        title={`Archive ${lead.email}?`}
        confirmLabel="Archive"
        onCancel={() => setConfirming(null)}
        onConfirm={archive}
      >
        <p>The lead leaves the list and the exports. Its email can be added again later.</p>
      </ConfirmDialog>
    </>
  );
}

function LeadDetails({ lead, onEdit, reload }: { lead: Lead; onEdit(): void; reload(): void }) {
  const name = [lead.firstName, lead.lastName].filter(Boolean).join(" ");
  const rated = lead.validatedAt !== null;
  const reason = optionalField<string>(lead, "emailReason");
  const parkedKind = optionalField<string>(lead, "websiteParkedKind");
  const parkedEvidence = optionalField<unknown>(lead, "websiteParkedEvidence");
  const ageDays = optionalField<number>(lead, "domainAgeDays");
  return (
    <>
      <div className="title-row">
        <h1 id="lead-title" data-testid="lead-email">
          <Breakable text={lead.email} />
        </h1>
        <LeadActions lead={lead} onEdit={onEdit} reload={reload} />
      </div>
      <DidYouMeanFix lead={lead} onChanged={reload} />
      <div className="panel rating-panel" data-testid="lead-rating">
        <div className="big-rating">
          <RatingBar value={lead.leadDeliverabilityRating} rated={rated} large />
        </div>
        <dl className="fields">
          <Field label="Verdict">
            {lead.validationStatus === "processing" ? (
              <VerdictBadge value="processing" kind="status" />
            ) : (
              <VerdictBadge value={rated ? (lead.emailStatus ?? lead.validationStatus) : null} />
            )}
          </Field>
          {reason ? (
            <Field label="Reason">
              <ReasonBadge reason={reason} />
            </Field>
          ) : null}
          <Field label="Band">{lead.leadQuality ?? "Not rated"}</Field>
          <Field label="Recommendation">
            {lead.leadRecommendation ? <RecommendationBadge value={lead.leadRecommendation} /> : "Not rated"}
          </Field>
          <Field label="Status">
            {labelOf(VALIDATION_STATUS, lead.validationStatus)}
            {lead.validatedAt ? (
              <span className="muted"> · validated {formatDate(lead.validatedAt)}</span>
            ) : null}
          </Field>
        </dl>
      </div>

      <h2>Why this rating</h2>
      {lead.ratingFactors.length === 0 ? (
        <p className="muted" data-testid="no-factors">
          Not rated yet: the lead has not been validated. Validate it to get a rating and its factors.
        </p>
      ) : (
        <FactorTable
          factors={lead.ratingFactors}
          caption="Rating factors"
          testId="rating-factors"
          hideCaption
        />
      )}

      <div className="columns">
        <section aria-labelledby="email-title">
          <h2 id="email-title">Email</h2>
          <dl className="fields" data-testid="email-results">
            <Field label="Deliverable">{yesNo(lead.emailValid)}</Field>
            <Field label="Score">{lead.emailScore}</Field>
            <Field label="Risk">{lead.emailRisk}</Field>
            <Field label="Type">{lead.emailType}</Field>
            <Field label="Provider">{providerOf(lead.emailService)}</Field>
            <Field label="Catch-all domain">{yesNo(lead.emailCatchAll)}</Field>
            <Field label="Disposable">{yesNo(lead.emailDisposable)}</Field>
          </dl>
        </section>
        <section aria-labelledby="website-title">
          <h2 id="website-title">Website</h2>
          <dl className="fields" data-testid="website-results">
            <Field label="Website">{lead.website ? <Breakable text={lead.website} /> : null}</Field>
            <Field label="Score">{lead.domainScore}</Field>
            <Field label="HTTP status">{lead.domainHttpStatus}</Field>
            <Field label="Final URL">
              {lead.domainFinalUrl ? <Breakable text={lead.domainFinalUrl} /> : null}
            </Field>
            <Field label="Valid TLS">{yesNo(lead.domainSslValid)}</Field>
            <Field label="Parked">
              {yesNo(lead.domainParked)}
              {parkedKind ? ` (${parkedKind.replaceAll("_", " ")})` : null}
            </Field>
            {parkedEvidence !== undefined ? (
              <Field label="Parked evidence" testId="parked-evidence">
                <span className="wrap">{evidenceText(parkedEvidence)}</span>
              </Field>
            ) : null}
            {ageDays !== undefined ? <Field label="Domain age">{formatNumber(ageDays)} days</Field> : null}
            <Field label="Response time">
              {lead.domainResponseTimeMs === null ? null : `${formatNumber(lead.domainResponseTimeMs)} ms`}
            </Field>
          </dl>
        </section>
      </div>

      <DomainFactsSection lead={lead} />

      <h2>Details</h2>
      <dl className="fields two" data-testid="lead-fields">
        <Field label="Name">{name}</Field>
        <Field label="Company">{lead.company}</Field>
        <Field label="Title">{lead.title}</Field>
        <Field label="Phone">{lead.phone}</Field>
        <Field label="LinkedIn">{lead.linkedIn ? <Breakable text={lead.linkedIn} /> : null}</Field>
        <Field label="Twitter">{lead.twitter ? <Breakable text={lead.twitter} /> : null}</Field>
        <Field label="Category">
          {[lead.leadServiceCategory, lead.leadServiceSubcategory].filter(Boolean).join(" / ")}
        </Field>
        <Field label="Campaign">{lead.campaign}</Field>
        <Field label="Tags">{lead.tags.length > 0 ? <Tags tags={lead.tags} /> : null}</Field>
        <Field label="Priority">{lead.priority}</Field>
        <Field label="Active">{yesNo(lead.status)}</Field>
        <Field label="Source">{labelOf(SOURCE, lead.source)}</Field>
        <Field label="Synced from">{lead.externalSource ? <ExternalSource lead={lead} /> : null}</Field>
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

/** "None" is how a check says it found no provider: shown as no value, not as a word. */
function providerOf(service: string | null): string | null {
  return service === null || service === "" || service.toLowerCase() === "none" ? null : service;
}

function evidenceText(evidence: unknown): string {
  if (Array.isArray(evidence))
    return evidence.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("; ");
  return typeof evidence === "string" ? evidence : JSON.stringify(evidence);
}

/** The editable fields with the API's limits (spec "Lead"): the limits are shown and enforced. */
const TEXT_FIELDS = [
  { name: "email", label: "Email", max: 254, required: true, type: "email" },
  { name: "website", label: "Website", max: 255 },
  { name: "firstName", label: "First name", max: 100 },
  { name: "lastName", label: "Last name", max: 100 },
  { name: "company", label: "Company", max: 200 },
  { name: "title", label: "Job title", max: 100 },
  { name: "phone", label: "Phone", max: 50, type: "tel" },
  { name: "linkedIn", label: "LinkedIn URL", max: 500 },
  { name: "twitter", label: "Twitter URL", max: 500 },
  { name: "leadServiceCategory", label: "Category", max: 200 },
  { name: "leadServiceSubcategory", label: "Subcategory", max: 200 },
  { name: "campaign", label: "Campaign", max: 200 },
] as const;
type TextField = (typeof TEXT_FIELDS)[number]["name"];

const PRIORITIES = ["low", "normal", "high", "urgent"] as const;

function EditLead({ lead, onDone }: { lead: Lead; onDone(): void }) {
  const { client, guard } = useApi();
  const initial = Object.fromEntries(
    TEXT_FIELDS.map((f) => [f.name, (lead[f.name] as string | null) ?? ""]),
  ) as Record<TextField, string>;
  const [values, setValues] = useState(initial);
  const [tags, setTags] = useState(lead.tags.join(", "));
  const [notes, setNotes] = useState(lead.notes ?? "");
  const [priority, setPriority] = useState(lead.priority);
  const [active, setActive] = useState(lead.status);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    // Only what changed is sent: an emptied field is cleared (null), the rest stays as it is.
    const body: Record<string, unknown> = {};
    for (const f of TEXT_FIELDS) {
      const next = values[f.name].trim();
      if (next !== initial[f.name]) body[f.name] = next === "" ? (f.name === "email" ? next : null) : next;
    }
    const nextTags = tags
      .split(/[,\n]/)
      .map((t) => t.trim())
      .filter(Boolean);
    if (nextTags.join("\u0000") !== lead.tags.join("\u0000")) body.tags = nextTags;
    if (notes !== (lead.notes ?? "")) body.notes = notes.trim() === "" ? null : notes;
    if (priority !== lead.priority) body.priority = priority;
    if (active !== lead.status) body.status = active;
    try {
      if (Object.keys(body).length > 0) await guard(client.leads.update(lead.id, body as LeadUpdateInput));
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="panel edit-form"
      onSubmit={save}
      aria-labelledby="edit-title"
      data-testid="lead-edit-form"
    >
      <h1 id="edit-title">
        Edit <Breakable text={lead.email} />
      </h1>
      <p className="muted">Saving changes no rating and charges nothing; validate again to re-rate.</p>
      <ErrorMessage error={error} title="Not saved." />
      <div className="edit-grid">
        {TEXT_FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input
              name={f.name}
              type={"type" in f ? f.type : "text"}
              value={values[f.name]}
              maxLength={f.max}
              required={"required" in f ? f.required : undefined}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
              aria-describedby={`${f.name}-limit`}
            />
            <small className="muted" id={`${f.name}-limit`}>
              {values[f.name].length}/{f.max} characters
            </small>
          </label>
        ))}
        <label>
          Priority
          <select name="priority" value={priority} onChange={(e) => setPriority(e.target.value)}>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={active}
            onChange={(e) => setActive(e.target.checked)}
            name="status"
          />{" "}
          Active
        </label>
      </div>
      <label>
        Tags
        <input
          name="tags"
          value={tags}
          onChange={(e) => setTags(e.target.value)}
          aria-describedby="tags-limit"
        />
        <small className="muted" id="tags-limit">
          Separated by commas; at most 100 tags of up to 100 characters each.
        </small>
      </label>
      <label>
        Notes
        <textarea
          name="notes"
          rows={4}
          value={notes}
          maxLength={10_000}
          onChange={(e) => setNotes(e.target.value)}
          aria-describedby="notes-limit"
        />
        <small className="muted" id="notes-limit">
          {formatNumber(notes.length)}/10,000 characters
        </small>
      </label>
      <div className="actions">
        <button type="submit" disabled={busy} data-testid="lead-save">
          {busy ? "Saving…" : "Save changes"}
        </button>
        <button type="button" onClick={onDone} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
