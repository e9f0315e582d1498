// The ways in: single sign-on through the organisation's identity provider when the server has it
// (a cookie session, found again on every load), or a credential kept in sessionStorage: a one-time
// sign-in link (made by `leadcheck dashboard link`), a token from the identity provider, or an API
// key. The last two are checked with one call (GET /v1/credits) before they are kept.
import { type FormEvent, useEffect, useState } from "react";
import { LeadcheckClient } from "../../../sdk/src/client.js";
import { ErrorMessage } from "../components/ui.js";
import { browserFetch, type Session, type SessionKind, ssoLoginUrl } from "../session.js";

export function SignInPage(props: {
  notice: { kind: "error" | "info"; text: string } | null;
  onSignedIn(session: Session): void;
}) {
  const [ssoUrl, setSsoUrl] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    ssoLoginUrl().then((url) => !cancelled && setSsoUrl(url));
    return () => {
      cancelled = true;
    };
  }, []);
  return (
    <main className="signin">
      <h1>Sign in to leadcheck</h1>
      {props.notice ? (
        <p
          className={props.notice.kind === "error" ? "alert" : "info"}
          role="alert"
          data-testid="signin-notice"
        >
          {props.notice.text}
        </p>
      ) : null}
      {ssoUrl ? (
        <section aria-labelledby="sso-title">
          <h2 id="sso-title">With your organisation's sign-on</h2>
          <p>
            <a className="button" href={ssoUrl} data-testid="sso-login">
              Sign in with single sign-on
            </a>
          </p>
        </section>
      ) : null}
      <section aria-labelledby="link-title">
        <h2 id="link-title">With a sign-in link</h2>
        <p>
          Ask your administrator for a link, or make one on the server:{" "}
          <code>leadcheck dashboard link --user YOUR_ACCOUNT</code>. A link works once and expires after 15
          minutes; opening it signs you in for 12 hours.
        </p>
      </section>
      <CredentialForm
        kind="identity"
        title="With your identity provider"
        hint="Paste a bearer token (JWT) issued by your organisation's identity provider."
        label="Identity provider token"
        onSignedIn={props.onSignedIn}
      />
      <CredentialForm
        kind="api_key"
        title="With an API key"
        hint="Leads, imports, credits and webhooks work with an API key; managing API keys needs one of the sign-ins above."
        label="API key"
        onSignedIn={props.onSignedIn}
      />
    </main>
  );
}

function CredentialForm(props: {
  kind: Exclude<SessionKind, "link">;
  title: string;
  hint: string;
  label: string;
  onSignedIn(session: Session): void;
}) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = `signin-${props.kind}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const credential = value.trim();
    if (!credential) return;
    setBusy(true);
    setError(null);
    try {
      const client = new LeadcheckClient({
        baseUrl: window.location.origin,
        fetch: browserFetch,
        ...(props.kind === "api_key" ? { apiKey: credential } : { token: credential }),
        maxRetries: 0,
      });
      const balance = await client.credits.get();
      props.onSignedIn({ kind: props.kind, credential, accountId: balance.userId, expiresAt: null });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      <p className="muted">{props.hint}</p>
      <form onSubmit={submit} data-testid={`${id}-form`}>
        <label htmlFor={id}>{props.label}</label>
        <input
          id={id}
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
      <ErrorMessage error={error} title="Sign-in refused." />
    </section>
  );
}
