// A second, positive-only signal for Microsoft 365 tenants that accept every RCPT: a user's
// OneDrive personal site exists at a predictable URL, and the site answers 403 (sign-in needed)
// when the user exists. Any other answer proves nothing, so it can only upgrade a verdict, never
// downgrade one. Off unless EMAIL_M365_PERSONAL_SITE_CHECK=true (ADR 0010).
import { getDomainWithoutSuffix } from "tldts";

export interface PersonalSiteOptions {
  /** HEAD status of a URL, or undefined when no answer came (network error, timeout). */
  headStatus(url: string): Promise<number | undefined>;
  /** The tenant's OneDrive origin; tests point it at a local server. */
  originOf?: (tenant: string) => string;
}

export class M365PersonalSite {
  constructor(private readonly options: PersonalSiteOptions) {}

  /** The personal-site URL of an address, or undefined when no tenant name can be derived. */
  urlOf(email: string): string | undefined {
    const at = email.lastIndexOf("@");
    const local = email.slice(0, at).toLowerCase();
    const domain = email.slice(at + 1).toLowerCase();
    // The tenant's default name is usually the registrable domain without its public suffix.
    const tenant = getDomainWithoutSuffix(domain);
    if (!tenant || !local) return undefined;
    const origin = this.options.originOf?.(tenant) ?? `https://${tenant}-my.sharepoint.com`;
    const site = `${local}_${domain}`.replace(/[.@]/g, "_");
    return `${origin}/personal/${encodeURIComponent(site)}/_layouts/15/onedrive.aspx`;
  }

  /** true only when the personal site answers 403; false means "no evidence", not "no mailbox". */
  async confirms(email: string): Promise<boolean> {
    const url = this.urlOf(email);
    if (!url) return false;
    return (await this.options.headStatus(url)) === 403;
  }
}

/** HEAD with a timeout, for production use. */
export function fetchHeadStatus(timeoutMs: number) {
  return async (url: string): Promise<number | undefined> => {
    try {
      const res = await fetch(url, {
        method: "HEAD",
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      return res.status;
    } catch {
      return undefined;
    }
  };
}
