// Credits: the balance, what was used this month, the last purchase, and the ledger page by page.
import { useState } from "react";
import { useApi, useLoader } from "../api.js";
import {
  displayCredits,
  Empty,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  Pager,
} from "../components/ui.js";

const PAGE = 20;

export function CreditsPage() {
  const { client } = useApi();
  const [offset, setOffset] = useState(0);
  const balance = useLoader((_api, signal) => client.credits.get({ signal }), []);
  const ledger = useLoader(
    (_api, signal) => client.credits.transactions({ limit: PAGE, offset }, { signal }),
    [offset],
  );

  return (
    <section aria-labelledby="credits-title">
      <h1 id="credits-title">Credits</h1>
      <ErrorMessage error={balance.error} />
      {balance.loading && !balance.data ? <Loading what="your balance" /> : null}
      {balance.data ? (
        <dl className="cards" data-testid="balance">
          <div>
            <dt>Balance</dt>
            <dd data-testid="balance-credits">{formatNumber(balance.data.displayCredits)} credits</dd>
            <dd className="muted">{balance.data.credits} stored credits</dd>
          </div>
          <div>
            <dt>Used this month</dt>
            <dd>{displayCredits(balance.data.usedThisMonth)} credits</dd>
          </div>
          <div>
            <dt>Last purchase</dt>
            <dd>
              {balance.data.lastPurchase
                ? `${displayCredits(balance.data.lastPurchase.credits)} credits, ${formatDate(balance.data.lastPurchase.at)}`
                : "none yet"}
            </dd>
          </div>
        </dl>
      ) : null}

      <h2>Ledger</h2>
      <ErrorMessage error={ledger.error} />
      {ledger.loading && !ledger.data ? <Loading what="the ledger" /> : null}
      {ledger.data && ledger.data.total === 0 ? (
        <Empty title="No credit movements yet.">Grants and charges appear here as they happen.</Empty>
      ) : null}
      {ledger.data && ledger.data.transactions.length > 0 ? (
        <>
          <table data-testid="ledger-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Type</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col" className="num">
                  Balance after
                </th>
                <th scope="col">Reason</th>
                <th scope="col">Reference</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.transactions.map((t) => (
                <tr key={t.id}>
                  <td>{formatDate(t.createdAt)}</td>
                  <td>{t.type}</td>
                  <td className={`num ${t.displayAmount < 0 ? "neg" : "pos"}`}>
                    {t.displayAmount > 0 ? "+" : ""}
                    {formatNumber(t.displayAmount)}
                  </td>
                  <td className="num">{displayCredits(t.balanceAfter)}</td>
                  <td>{t.reason}</td>
                  <td>
                    <code>{t.reference ?? ""}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
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
