// `leadcheck dashboard link --user U`: prints a one-time dashboard sign-in link, the way in for
// installs without an identity provider. Needs AUTH_JWT_SECRET (the same value as the server's);
// opens no database: the link is single use because the server records it when it is exchanged.
import { type Command, Option } from "commander";
import { MAX_SIGNIN_TTL_MS, parseDurationMs, SigninLinks } from "../accounts/signin.service.js";
import { type Config, ConfigError } from "../config/config.js";
import { systemClock } from "../lib/clock.js";

interface LinkOptions {
  user: string;
  ttl: string;
  url?: string;
}

function baseUrlOf(given: string | undefined, config: Readonly<Config>): string {
  const raw = given ?? `http://localhost:${config.port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`--url must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(`--url must be an http(s) URL, got "${raw}"`);
  return raw;
}

export function registerDashboardCommands(program: Command, config: () => Readonly<Config>): void {
  const dashboard = program.command("dashboard").description("The browser dashboard at /dashboard/");
  dashboard
    .command("link")
    .description("Print a one-time sign-in link to the dashboard (needs AUTH_JWT_SECRET)")
    .requiredOption("--user <userId>", "account id to sign in as (the identity token's sub)")
    .option("--ttl <duration>", "how long the link stays valid, e.g. 90s, 15m, 2h (at most 24h)", "15m")
    .addOption(
      new Option("--url <url>", "the dashboard's public base URL (default: http://localhost:PORT)").env(
        "LEADCHECK_URL",
      ),
    )
    .action(async (opts: LinkOptions) => {
      const cfg = config();
      const ttlMs = parseDurationMs(opts.ttl);
      if (ttlMs === undefined || ttlMs > MAX_SIGNIN_TTL_MS)
        throw new ConfigError(`--ttl must be a duration like 90s, 15m or 2h, at most 24h; got "${opts.ttl}"`);
      const links = new SigninLinks({
        secret: cfg.auth.jwtSecret,
        issuer: cfg.auth.issuer,
        audience: cfg.auth.audience,
        clock: systemClock,
      });
      const outcome = await links.createLink(opts.user, ttlMs, baseUrlOf(opts.url, cfg));
      switch (outcome.kind) {
        case "disabled":
          throw new ConfigError(
            "sign-in links need AUTH_JWT_SECRET (the server's value); with an identity provider, sign in with its token",
          );
        case "invalid_user":
          throw new ConfigError(
            `--user must be an account id (letters, digits, . _ : @ | -), got "${opts.user}"`,
          );
        case "invalid_ttl":
          throw new ConfigError(`--ttl must be between 1s and 24h, got "${opts.ttl}"`);
        case "link":
          process.stdout.write(`${outcome.url}\n`);
          process.stderr.write(`Single use, valid until ${outcome.expiresAt}. Open it in a browser.\n`);
      }
    });
}
