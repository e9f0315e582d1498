// Credits: the balance, what was used this month, the last purchase, buying more (Stripe Checkout
// when the server has it, otherwise how an operator grants credits), and the ledger page by page.
// Every amount is in credits as the user spends them: 1 credit per check (the API's
// displayCredits; its stored credits are 1,000 times smaller).
import { type FormEvent, useState } from "react";
import type { PaymentSettings } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import {
  displayCredits,
  Empty,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  Pager,
} from "../components/ui.js";
import { useCan } from "../me.js";

const PAGE = 20;

export function CreditsPage() {
  const can = useCan();
  const { client } = useApi();
  const [offset, setOffset] = useState(0);
  const balance = useLoader((_api, signal) => client.credits.get({ signal }), []);
  const settings = useLoader((_api, signal) => client.credits.paymentSettings({ signal }), []);
  const checkout = new URLSearchParams(window.location.search).get("checkout");
  const ledger = useLoader(
    (_api, signal) => client.credits.transactions({ limit: PAGE, offset }, { signal }),
    [offset],
  );

  return (
    <section aria-labelledby="credits-title">
      <h1 id="credits-title">Credits</h1>
      <p className="muted">1 credit per email or website check; a lead validated on creation uses 2.</p>
      {checkout === "success" ? (
        <p className="info" role="status" data-testid="checkout-status">
          Payment received. The credits are added as soon as Stripe confirms it, usually within seconds:{" "}
          <button type="button" onClick={balance.reload}>
            Refresh the balance
          </button>
        </p>
      ) : checkout === "cancelled" ? (
        <p className="info" role="status" data-testid="checkout-status">
          Payment cancelled: nothing was charged.
        </p>
      ) : null}
      <ErrorMessage error={balance.error} />
      {balance.loading && !balance.data ? <Loading what="your balance" /> : null}
      {balance.data ? (
        <dl className="cards" data-testid="balance">
          <div>
            <dt>Balance</dt>
            <dd data-testid="balance-credits">{plural(balance.data.displayCredits, "credit")}</dd>
          </div>
          <div>
            <dt>Used this month</dt>
            <dd>{plural(Math.round(balance.data.usedThisMonth * 1000), "credit")}</dd>
          </div>
          <div>
            <dt>Last purchase</dt>
            <dd>
              {balance.data.lastPurchase
                ? `${plural(Math.round(balance.data.lastPurchase.credits * 1000), "credit")}, ${formatDate(balance.data.lastPurchase.at)}`
                : "none yet"}
            </dd>
          </div>
        </dl>
      ) : null}

      {settings.data && can("billing:write") ? <BuyCredits settings={settings.data} /> : null}
      <ErrorMessage error={settings.error} />

      <h2>Ledger</h2>
      <ErrorMessage error={ledger.error} />
      {ledger.loading && !ledger.data ? <Loading what="the ledger" /> : null}
      {ledger.data && ledger.data.total === 0 ? (
        <Empty title="No credit movements yet.">Grants and charges appear here as they happen.</Empty>
      ) : null}
      {ledger.data && ledger.data.transactions.length > 0 ? (
        <>
          <DataTable
            label="Credit ledger"
            rows={ledger.data.transactions}
            rowKey={(t) => t.id}
            testId="ledger-table"
            rowTestId="ledger-row"
            columns={[
              { key: "when", header: "When", primary: true, cell: (t) => formatDate(t.createdAt) },
              { key: "type", header: "Type", sortValue: (t) => t.type, cell: (t) => t.type },
              {
                key: "credits",
                header: "Credits",
                className: "num",
                sortValue: (t) => t.displayAmount,
                cell: (t) => (
                  <span className={t.displayAmount < 0 ? "neg" : "pos"}>
                    {t.displayAmount > 0 ? "+" : ""}
                    {formatNumber(t.displayAmount)}
                  </span>
                ),
              },
              {
                key: "balance",
                header: "Balance after",
                className: "num",
                cell: (t) => displayCredits(t.balanceAfter),
              },
              { key: "reason", header: "Reason", cell: (t) => t.reason },
              { key: "reference", header: "Reference", cell: (t) => <code>{t.reference ?? ""}</code> },
            ]}
          />
          <Pager
            label="Ledger"
            offset={offset}
            limit={PAGE}
            total={ledger.data.total}
            shown={ledger.data.transactions.length}
            onChange={setOffset}
          />
        </>
      ) : null}
    </section>
  );
}

const plural = (n: number, word: string) => `${formatNumber(n)} ${word}${n === 1 ? "" : "s"}`;

function BuyCredits({ settings }: { settings: PaymentSettings }) {
  const { client, guard } = useApi();
  const [amount, setAmount] = useState(String(settings.minimumAmount));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const currency = settings.currency.toUpperCase();
  const units = Number(amount);
  const valid = Number.isInteger(units) && units >= settings.minimumAmount && units <= settings.maximumAmount;

  if (!settings.enabled) {
    return (
      <section className="panel" aria-labelledby="buy-title" data-testid="buy-credits">
        <h2 id="buy-title">Buy credits</h2>
        <p>Buying credits is not set up on this server. Ask its operator to add credits to your account:</p>
        <pre>
          <code>npm run leadcheck -- credits grant --user &lt;your account id&gt; --credits 5</code>
        </pre>
        <p className="muted">
          That command takes stored credits: 5 adds {formatNumber(5 * settings.displayCreditsPerUnit)}{" "}
          credits. Operators can also use <code>POST /v1/admin/accounts/&lt;account&gt;/credits</code>, or
          turn on card payments by setting <code>STRIPE_SECRET_KEY</code> and{" "}
          <code>STRIPE_WEBHOOK_SECRET</code>.
        </p>
      </section>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    setBusy(true);
    setError(null);
    try {
      const session = await guard(client.credits.checkout(units));
      window.location.assign(session.url);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="buy-title" data-testid="buy-credits">
      <h2 id="buy-title">Buy credits</h2>
      <p>
        1 {currency} buys {formatNumber(settings.displayCreditsPerUnit)} credits. Payment is by Stripe; the
        credits are added as soon as it is confirmed.
      </p>
      <form className="buy-form" onSubmit={submit}>
        <label>
          Amount in {currency}
          <input
            type="number"
            inputMode="numeric"
            min={settings.minimumAmount}
            max={settings.maximumAmount}
            step={1}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            data-testid="buy-amount"
            aria-describedby="buy-gets"
          />
        </label>
        <p id="buy-gets" data-testid="buy-gets">
          {valid
            ? `You get ${formatNumber(units * settings.displayCreditsPerUnit)} credits.`
            : `Enter a whole amount from ${settings.minimumAmount} to ${formatNumber(settings.maximumAmount)} ${currency}.`}
        </p>
        <button type="submit" disabled={busy || !valid} data-testid="buy-submit">
          {busy ? "Opening Stripe…" : "Buy credits"}
        </button>
      </form>
      <ErrorMessage error={error} title="The payment could not be started." />
    </section>
  );
}
