// Where a synced lead lives outside leadcheck: its sheet (the API names the spreadsheet and tab,
// not the row) or its HubSpot contact record (the API's externalUrl, built with the portal id the
// connection read from HubSpot; plain text for contacts synced before it was recorded).
import type { Lead } from "../../../sdk/src/api-types.js";
import { formatDate } from "../components/ui.js";

export function ExternalSource({ lead }: { lead: Lead }) {
  if (!lead.externalSource || !lead.externalId) return null;
  if (lead.externalSource === "google_sheets") {
    const bang = lead.externalId.indexOf("!");
    const spreadsheetId = bang < 0 ? lead.externalId : lead.externalId.slice(0, bang);
    const tab = bang < 0 ? null : lead.externalId.slice(bang + 1);
    return (
      <span data-testid="external-source">
        <a
          href={`https://docs.google.com/spreadsheets/d/${encodeURIComponent(spreadsheetId)}/edit`}
          target="_blank"
          rel="noreferrer"
        >
          Open its Google Sheet{tab ? ` (tab “${tab}”)` : ""}
        </a>
        {lead.syncedAt ? (
          <span className="muted"> · verdict written back {formatDate(lead.syncedAt)}</span>
        ) : null}
      </span>
    );
  }
  if (lead.externalSource === "hubspot") {
    return (
      <span data-testid="external-source">
        {lead.externalUrl ? (
          <a href={lead.externalUrl} target="_blank" rel="noreferrer">
            Open its HubSpot contact <code>{lead.externalId}</code>
          </a>
        ) : (
          <>
            HubSpot contact <code>{lead.externalId}</code>
          </>
        )}
        {lead.syncedAt ? (
          <span className="muted"> · verdict written back {formatDate(lead.syncedAt)}</span>
        ) : null}
      </span>
    );
  }
  return <span data-testid="external-source">{`${lead.externalSource} ${lead.externalId}`}</span>;
}
