// The part of oidc-provider's API the loopback provider uses (the package ships no types;
// @types/oidc-provider trails its major versions).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Interaction {
    uid: string;
    prompt: { name: string };
    session?: { accountId: string };
  }
  interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: new (init: {
      accountId: string;
      clientId: string;
    }) => GrantInstance;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: "server_error", listener: (ctx: unknown, error: Error) => void): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
  export type { Account, Interaction };
}
