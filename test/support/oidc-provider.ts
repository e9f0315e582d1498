// A real OpenID provider on loopback: panva's oidc-provider (OpenID Certified), with one
// confidential client. Its login and consent prompts are answered at once for the person the test
// names (`signInAs`), so a browser, or a test following redirects, goes through the real
// authorization endpoint, interaction, code issue, token endpoint and ID token signing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface OidcPerson {
  sub: string;
  email: string;
  email_verified: boolean;
}

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the provider's prompt next. */
  signInAs: OidcPerson;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string, person: OidcPerson): Promise<FakeOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "leadcheck-dashboard";
  const clientSecret = "test-oidc-client-secret-0123456789abcdef";
  const state: { signInAs: OidcPerson } = { signInAs: person };
  const people = new Map<string, OidcPerson>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    cookies: { keys: ["test-oidc-cookie-key"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const who = people.get(id);
      if (!who) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, email: who.email, email_verified: who.email_verified }),
      };
    },
  });
  provider.on("server_error", (_ctx, error) => console.error("oidc-provider server_error", error));
  const callback = provider.callback();

  server.on("request", (req, res) => {
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? "");
    if (!m) {
      callback(req, res);
      return;
    }
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === "login") {
          const who = state.signInAs;
          people.set(who.sub, who);
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: who.sub } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const grant = new provider.Grant({ accountId: details.session!.accountId, clientId });
        grant.addOIDCScope("openid email profile");
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { consent: { grantId } },
          { mergeWithLastSubmission: true },
        );
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });

  return {
    issuer,
    clientId,
    clientSecret,
    get signInAs() {
      return state.signInAs;
    },
    set signInAs(who: OidcPerson) {
      state.signInAs = who;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
