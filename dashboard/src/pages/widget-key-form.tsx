// A new widget (publishable) key: a name, the origins of the signup pages, test mode, and the
// abuse limits and CAPTCHA the server supports per key. Empty limits keep the server's defaults;
// whatever is typed goes to the server, whose message names a bad field.
import { type FormEvent, useState } from "react";
import type { ApiKeyCreateInput } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage } from "../components/ui.js";

const LIMITS = [
  { field: "dailyCap", label: "Charged addresses a day" },
  { field: "perIpPerMinute", label: "Checks a minute per visitor IP" },
  { field: "perEmailPerMinute", label: "Checks a minute per address" },
  { field: "distinctEmailsPerIpPerDay", label: "Addresses a day per visitor IP" },
] as const;
type LimitField = (typeof LIMITS)[number]["field"];
type Widget = NonNullable<ApiKeyCreateInput["widget"]>;

export function WidgetKeyForm({ onCreated }: { onCreated(keyId: string): void }) {
  const { client, guard } = useApi();
  const [name, setName] = useState("");
  const [origins, setOrigins] = useState("");
  const [test, setTest] = useState(false);
  const [limits, setLimits] = useState<Record<LimitField, string>>({
    dailyCap: "",
    perIpPerMinute: "",
    perEmailPerMinute: "",
    distinctEmailsPerIpPerDay: "",
  });
  const [captcha, setCaptcha] = useState<"" | "turnstile" | "hcaptcha">("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const widget: Widget = {};
    for (const { field } of LIMITS) if (limits[field].trim() !== "") widget[field] = Number(limits[field]);
    if (captcha) widget.captcha = captcha;
    try {
      const created = await guard(
        client.keys.create({
          name: name.trim(),
          type: "publishable",
          mode: test ? "test" : "live",
          allowedOrigins: origins
            .split(/[\s,]+/)
            .map((o) => o.trim())
            .filter((o) => o !== ""),
          ...(Object.keys(widget).length > 0 ? { widget } : {}),
        }),
      );
      setName("");
      setOrigins("");
      onCreated(created.key_id);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="panel" data-testid="widget-key-form">
      <summary>New widget key</summary>
      <form onSubmit={submit} className="settings-form">
        <label>
          Name
          <input
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="widget-key-name"
          />
        </label>
        <label>
          Allowed origins (one per line)
          <textarea
            rows={3}
            value={origins}
            placeholder={"https://www.example.com\nhttps://*.example.com"}
            onChange={(e) => setOrigins(e.target.value)}
            data-testid="widget-key-origins-input"
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={test}
            onChange={(e) => setTest(e.target.checked)}
            data-testid="widget-key-test"
          />
          Test mode (scripted answers, never charged; local origins such as http://localhost allowed)
        </label>
        <fieldset>
          <legend>Abuse limits (empty: the server's default)</legend>
          {LIMITS.map(({ field, label }) => (
            <label key={field}>
              {label}
              <input
                inputMode="numeric"
                value={limits[field]}
                onChange={(e) => setLimits({ ...limits, [field]: e.target.value })}
                data-testid={`widget-limit-${field}`}
              />
            </label>
          ))}
          <label>
            CAPTCHA
            <select
              value={captcha}
              onChange={(e) => setCaptcha(e.target.value as typeof captcha)}
              data-testid="widget-captcha"
            >
              <option value="">none</option>
              <option value="turnstile">Cloudflare Turnstile</option>
              <option value="hcaptcha">hCaptcha</option>
            </select>
          </label>
        </fieldset>
        <button type="submit" disabled={busy} data-testid="widget-key-create">
          {busy ? "Creating…" : "Create widget key"}
        </button>
      </form>
      <ErrorMessage error={error} title="Not created." />
    </details>
  );
}
