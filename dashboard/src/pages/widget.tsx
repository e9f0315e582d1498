// The signup-form widget (docs/widget.md): publishable keys with their allowed origins and the
// abuse limits in force, a new widget key with its limits and CAPTCHA, the widget's activity (checks
// per day, flagged answers, refused requests), the one script tag to copy, and a live preview of the widget in a form on this page (a key must allow this page's origin).
import { useState } from "react";
import type { ApiKeyList } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { Empty, ErrorMessage, formatNumber, Loading, SecretField } from "../components/ui.js";
import { widgetSnippet } from "../key-rules.js";
import { TestModeBanner } from "./test-mode.js";
import { WidgetKeyForm } from "./widget-key-form.js";
import { WidgetPreview } from "./widget-preview.js";
import { WidgetStatsPanel } from "./widget-stats.js";

export type WidgetKey = ApiKeyList["keys"][number] & { api_key: string };

export function WidgetPage() {
  const { client } = useApi();
  const keys = useLoader((_api, signal) => client.keys.list({ signal }), []);
  const [chosenId, setChosenId] = useState<string | null>(null);
  const widgetKeys = (keys.data?.keys ?? []).filter(
    (key): key is WidgetKey => key.type === "publishable" && typeof key.api_key === "string",
  );
  const chosen = widgetKeys.find((key) => key.key_id === chosenId) ?? widgetKeys[0] ?? null;

  return (
    <section aria-labelledby="widget-title">
      <h1 id="widget-title">Signup-form widget</h1>
      <p className="muted">
        One script tag checks the email field of your signup form as visitors type: typos with a one-click
        fix, disposable and invalid addresses blocked, never holding a submit longer than the deadline. It
        runs on a publishable key (<code>pk_…</code>), safe in a page: it works only on the widget endpoint,
        only from its allowed origins, within its abuse limits. Your form's backend confirms the verdict's
        token with a secret key.
      </p>
      <WidgetKeyForm
        onCreated={(keyId) => {
          setChosenId(keyId);
          keys.reload();
        }}
      />
      <h2>Widget keys</h2>
      {keys.error ? <ErrorMessage error={keys.error} /> : null}
      {keys.loading && !keys.data ? <Loading what="widget keys" /> : null}
      {keys.data && widgetKeys.length === 0 ? (
        <Empty title="No widget key yet.">Create one above with the origins of your signup pages.</Empty>
      ) : null}
      {widgetKeys.some((key) => key.mode === "test") ? (
        <TestModeBanner>
          Test-mode keys get scripted answers (valid@…, invalid@…, disposable@mailinator.com, …), never reach
          the network and are never charged.
        </TestModeBanner>
      ) : null}
      {widgetKeys.length > 0 ? (
        <DataTable
          label="Widget keys"
          rows={widgetKeys}
          rowKey={(key) => key.key_id}
          testId="widget-keys"
          rowTestId="widget-key-row"
          columns={[
            {
              key: "name",
              header: "Key",
              primary: true,
              cell: (key) => (
                <span className="breakable">
                  <strong>{key.name}</strong>{" "}
                  {key.mode === "test" ? <span className="badge tone-warn">test</span> : null}
                  <div>
                    <code>{key.api_key}</code>
                  </div>
                </span>
              ),
            },
            {
              key: "origins",
              header: "Allowed origins",
              cell: (key) => (
                <span className="breakable" data-testid="widget-key-origins">
                  {(key.allowedOrigins ?? []).map((origin) => (
                    <code key={origin} className="tag">
                      {origin}
                    </code>
                  ))}
                </span>
              ),
            },
            { key: "limits", header: "Abuse limits", cell: (key) => <Limits widgetKey={key} /> },
          ]}
          actions={(key) => (
            <button
              type="button"
              onClick={() => setChosenId(key.key_id)}
              aria-pressed={chosen?.key_id === key.key_id}
              aria-label={`Use ${key.name} for the snippet and preview`}
            >
              {chosen?.key_id === key.key_id ? "Shown below" : "Use"}
            </button>
          )}
        />
      ) : null}
      {widgetKeys.length > 0 ? <WidgetStatsPanel widgetKeys={widgetKeys} /> : null}
      {chosen ? (
        <>
          <h2>Your snippet</h2>
          <p>
            Put this tag in the page of your signup form (key “{chosen.name}”). Every{" "}
            <code>input[type=email]</code> is checked on blur and before submit;{" "}
            <code>data-block="invalid disposable"</code> also blocks disposable addresses,{" "}
            <code>data-lang</code> picks English, German, French, Spanish or Polish.
          </p>
          <SecretField
            label="Script tag"
            value={widgetSnippet(window.location.origin, chosen.api_key)}
            testId="widget-snippet"
          />
          <WidgetPreview widgetKey={chosen} />
        </>
      ) : null}
    </section>
  );
}

function Limits({ widgetKey }: { widgetKey: WidgetKey }) {
  const limits = widgetKey.widget;
  if (!limits) return <span className="muted">—</span>;
  return (
    <ul className="plain" data-testid="widget-key-limits">
      <li>{formatNumber(limits.dailyCap)} charged addresses a day</li>
      <li>{formatNumber(limits.perIpPerMinute)} checks a minute per visitor IP</li>
      <li>{formatNumber(limits.perEmailPerMinute)} checks a minute per address</li>
      <li>{formatNumber(limits.distinctEmailsPerIpPerDay)} addresses a day per visitor IP</li>
      <li>{limits.captcha ? `CAPTCHA: ${limits.captcha}` : "no CAPTCHA"}</li>
    </ul>
  );
}
