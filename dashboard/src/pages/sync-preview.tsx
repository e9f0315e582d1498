// The mapping preview of a sync (POST /v1/connections/{id}/preview): the lead field each column
// (or HubSpot property) feeds, the first 5 rows as leads, how many rows a sync reads, and what
// its validation costs against the balance, before anything is written.
import type { CreditBalance, SyncPreview } from "../../../sdk/src/api-types.js";
import { formatNumber, plural } from "../components/ui.js";

const FIELD_LABELS: Record<string, string> = {
  email: "Email",
  website: "Website",
  firstName: "First name",
  lastName: "Last name",
  company: "Company",
  title: "Title",
  phone: "Phone",
};

export function SyncPreviewPanel({
  preview,
  balance,
}: {
  preview: SyncPreview;
  balance: CreditBalance | undefined;
}) {
  const fields = Object.keys(FIELD_LABELS);
  const shown = fields.filter((f) => preview.rows.some((r) => r.lead[f]));
  const source = preview.kind === "google_sheets" ? "column" : "property";
  return (
    <div className="preview-panel" data-testid="sync-preview">
      <h3>Preview{preview.sheet ? ` of “${preview.sheet}”` : ""}</h3>
      <table className="mapping-table" data-testid="preview-mapping">
        <caption>How the {source}s map to lead fields</caption>
        <thead>
          <tr>
            <th scope="col">Lead field</th>
            <th scope="col">From {source}</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr key={field}>
              <th scope="row">{FIELD_LABELS[field]}</th>
              <td>
                {preview.mapping[field] ? (
                  <code>{preview.mapping[field]}</code>
                ) : (
                  <span className="muted">not found</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {preview.mapping.email ? null : (
        <p className="alert" role="alert">
          No email column was recognised: name one in the header (Email, E-Mail, Courriel, …).
        </p>
      )}
      {preview.rows.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard (axe scrollable-region-focusable)
        <section className="table-scroll" tabIndex={0} aria-label="The first rows">
          <table className="preview-rows" data-testid="preview-rows">
            <caption>The first {plural(preview.rows.length, "lead")}</caption>
            <thead>
              <tr>
                <th scope="col">{preview.kind === "google_sheets" ? "Row" : "Contact"}</th>
                {shown.map((f) => (
                  <th key={f} scope="col">
                    {FIELD_LABELS[f]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {preview.rows.map((row) => (
                <tr key={row.item}>
                  <td>{row.item.replace(/^(row|contact) /, "")}</td>
                  {shown.map((f) => (
                    <td key={f}>{row.lead[f] ?? ""}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <p data-testid="preview-total">
        A sync reads {preview.totalExact ? "" : "at least "}
        {preview.kind === "google_sheets"
          ? `${plural(preview.total, "row")} with an email`
          : plural(preview.total, "contact")}
        {preview.plan
          ? `: ${formatNumber(preview.plan.created)} new, ${formatNumber(preview.plan.matched)} already leads, ${formatNumber(preview.plan.skipped)} skipped.`
          : "."}
      </p>
      <PreviewCost preview={preview} balance={balance} />
    </div>
  );
}

function PreviewCost({ preview, balance }: { preview: SyncPreview; balance: CreditBalance | undefined }) {
  const { cost } = preview;
  const enough = balance ? balance.displayCredits >= cost.displayCredits : null;
  const words = {
    exact: "costs",
    at_most: "costs at most",
    at_least: "costs at least",
  }[cost.basis];
  return (
    <p className={enough === false ? "alert" : "info"} data-testid="preview-cost">
      Validating {plural(cost.leads, "lead")} {words} <strong>{plural(cost.displayCredits, "credit")}</strong>
      {cost.basis === "at_most" ? " (contacts already validated here are not charged again)" : ""}.{" "}
      {balance === undefined
        ? ""
        : enough
          ? `Your balance of ${plural(balance.displayCredits, "credit")} covers it.`
          : `Your balance is ${plural(balance.displayCredits, "credit")}: the validation would be refused.`}
    </p>
  );
}
