// Data settings of the account: how long each kind of data is kept (the daily purge applies it),
// an export of everything the account holds, and erasing a person by email. Owners and admins
// (data:admin) see it; the server's limits and messages are shown as given.
import { type FormEvent, useEffect, useState } from "react";
import type { RetentionSettings } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { ErrorMessage, Loading } from "../components/ui.js";
import { useCan } from "../me.js";
import { ErasePerson } from "./settings-erase.js";
import { AccountExportPanel } from "./settings-export.js";

type DaysField = Exclude<keyof RetentionSettings, "suppress_erased_emails">;

const PERIODS: { field: DaysField; label: string; hint: string }[] = [
  { field: "archived_leads_days", label: "Archived leads", hint: "days after archiving" },
  {
    field: "batch_item_details_days",
    label: "Batch item details",
    hint: "days a finished item keeps its input and result",
  },
  {
    field: "webhook_delivery_bodies_days",
    label: "Webhook delivery bodies",
    hint: "days a delivery keeps its request and response",
  },
  { field: "audit_entries_days", label: "Audit entries", hint: "days the audit log keeps an entry" },
];

export function SettingsPage() {
  const can = useCan();
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {can("data:admin") ? (
        <>
          <Retention />
          <AccountExportPanel />
          <ErasePerson />
        </>
      ) : (
        <p className="info" role="note">
          Data settings need the admin or owner role.
        </p>
      )}
    </section>
  );
}

function Retention() {
  const { client, guard } = useApi();
  const current = useLoader((_api, signal) => client.privacy.retention({ signal }), []);
  const [form, setForm] = useState<Record<DaysField, string> & { suppress: boolean }>();
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const data = current.data;
    if (!data) return;
    setForm({
      archived_leads_days: String(data.archived_leads_days),
      batch_item_details_days: String(data.batch_item_details_days),
      webhook_delivery_bodies_days: String(data.webhook_delivery_bodies_days),
      audit_entries_days: String(data.audit_entries_days),
      suppress: data.suppress_erased_emails,
    });
  }, [current.data]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    setBusy(true);
    setError(null);
    setStatus("");
    try {
      // Sent as typed: the server's schema decides what is a valid number of days.
      const days = Object.fromEntries(PERIODS.map(({ field }) => [field, Number(form[field])]));
      await guard(client.privacy.setRetention({ ...days, suppress_erased_emails: form.suppress }));
      setStatus("Saved. The daily purge applies the new periods; the change is in the audit log.");
      current.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      <p className="muted">How long leadcheck keeps each kind of data. 0 keeps it forever.</p>
      {current.error ? <ErrorMessage error={current.error} /> : null}
      {!form ? <Loading what="retention settings" /> : null}
      {form ? (
        <form onSubmit={save} data-testid="retention-form" className="settings-form">
          {PERIODS.map(({ field, label, hint }) => (
            <label key={field}>
              {label}
              <span className="field-row">
                <input
                  type="text"
                  inputMode="numeric"
                  value={form[field]}
                  onChange={(e) => setForm({ ...form, [field]: e.target.value })}
                  data-testid={`retention-${field}`}
                  aria-describedby={`${field}-hint`}
                />
                <span className="muted" id={`${field}-hint`}>
                  {hint}
                </span>
              </span>
            </label>
          ))}
          <label className="check">
            <input
              type="checkbox"
              checked={form.suppress}
              onChange={(e) => setForm({ ...form, suppress: e.target.checked })}
              data-testid="retention-suppress"
            />
            Refuse an erased address when it is created or imported again
          </label>
          <button type="submit" disabled={busy} data-testid="retention-save">
            {busy ? "Saving…" : "Save retention"}
          </button>
        </form>
      ) : null}
      <p role="status" data-testid="retention-status">
        {status}
      </p>
      <ErrorMessage error={error} title="Not saved." />
    </section>
  );
}
