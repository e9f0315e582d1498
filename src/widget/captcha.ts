// Server-side verification of a Cloudflare Turnstile or hCaptcha token, for publishable keys that
// require one. Both providers take a form-encoded POST (secret, response, remoteip) to their
// siteverify URL and answer JSON { success, "error-codes", hostname, challenge_ts }. The URL is
// configuration, so tests point it at a local fake. A provider that cannot be reached is a refusal
// with its reason (never a pass): a CAPTCHA that could be skipped by making it slow protects nothing.

import type { CaptchaSettings } from "../config/widget-config.js";
import type { CaptchaProvider } from "../keys/key-policy.js";

type CaptchaOutcome = { kind: "passed" } | { kind: "failed"; reason: string };

export interface CaptchaVerifier {
  verify(provider: CaptchaProvider, token: string | undefined, remoteIp: string): Promise<CaptchaOutcome>;
}

export function createCaptchaVerifier(settings: {
  turnstile: CaptchaSettings;
  hcaptcha: CaptchaSettings;
  captchaTimeoutMs: number;
}): CaptchaVerifier {
  return {
    async verify(provider, token, remoteIp) {
      if (!token) return { kind: "failed", reason: "missing-input-response" };
      const site = provider === "turnstile" ? settings.turnstile : settings.hcaptcha;
      if (!site.secret) return { kind: "failed", reason: "captcha-not-configured" };
      const form = new URLSearchParams({ secret: site.secret, response: token, remoteip: remoteIp });
      try {
        const res = await fetch(site.verifyUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form,
          signal: AbortSignal.timeout(settings.captchaTimeoutMs),
        });
        const body = (await res.json()) as { success?: unknown; "error-codes"?: unknown };
        if (body.success === true) return { kind: "passed" };
        const codes = Array.isArray(body["error-codes"]) ? body["error-codes"].map(String) : [];
        return { kind: "failed", reason: codes.join(",") || `siteverify answered ${res.status}` };
      } catch (error) {
        return { kind: "failed", reason: `siteverify unreachable: ${(error as Error).name}` };
      }
    },
  };
}
