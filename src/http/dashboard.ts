// The browser dashboard (dashboard/, built by `npm run build:dashboard` into dashboard/dist) served
// by the API itself at /dashboard/. Only files of the build are served (listed again after a
// rebuild); any other path under /dashboard/ gets index.html so the app's own routes survive a reload. Hashed assets are cached
// for a year, index.html is revalidated every time, and every page carries a self-only CSP.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";

const DASHBOARD_DIST = fileURLToPath(new URL("../../dashboard/dist", import.meta.url));

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const NOT_BUILT =
  "The dashboard is not built. Run `npm run build:dashboard` (npm install does it) and reload this page.\n";

/** Relative paths (with `/`) of every file in the build. */
function listBuild(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.add(relative(root, full).split(sep).join("/"));
    }
  };
  walk(root);
  return files;
}

/** The build's files, listed again whenever index.html changes (a rebuild); undefined without a build. */
function buildWatcher(root: string): () => Set<string> | undefined {
  let listed: { mtimeMs: number; files: Set<string> } | undefined;
  return () => {
    const index = statSync(join(root, "index.html"), { throwIfNoEntry: false });
    if (!index) return undefined;
    if (listed?.mtimeMs !== index.mtimeMs) listed = { mtimeMs: index.mtimeMs, files: listBuild(root) };
    return listed.files;
  };
}

export async function dashboardRoutes(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? DASHBOARD_DIST;
  const build = buildWatcher(root);

  await app.register(async (scope) => {
    await scope.register(fastifyStatic, { root, serve: false, suppressWarning: true });

    const securityHeaders = (reply: FastifyReply) =>
      reply
        .header("Content-Security-Policy", CSP)
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .header("X-Frame-Options", "DENY");

    const sendIndex = (reply: FastifyReply) =>
      securityHeaders(reply)
        .header("Cache-Control", "no-cache")
        .sendFile("index.html", root, { cacheControl: false });

    const notBuilt = (reply: FastifyReply) =>
      reply.status(503).header("Cache-Control", "no-store").type("text/plain; charset=utf-8").send(NOT_BUILT);

    const hidden = { schema: { hide: true } };

    scope.get("/", hidden, async (_request, reply) => reply.redirect("/dashboard/"));
    scope.get("/dashboard", hidden, async (_request, reply) => reply.redirect("/dashboard/"));
    scope.get("/dashboard/", hidden, async (_request, reply) =>
      build() ? sendIndex(reply) : notBuilt(reply),
    );
    scope.get<{ Params: { "*": string } }>("/dashboard/*", hidden, async (request, reply) => {
      const known = build();
      if (!known) return notBuilt(reply);
      const path = request.params["*"];
      if (path === "index.html") return sendIndex(reply);
      if (known.has(path)) {
        const hashed = path.startsWith("assets/");
        return securityHeaders(reply)
          .header("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "public, max-age=3600")
          .sendFile(path, root, { cacheControl: false });
      }
      // A missing asset is a 404 (a stale index.html after an upgrade), never the app's HTML.
      if (path.startsWith("assets/")) {
        return reply.status(404).header("Cache-Control", "no-store").type("text/plain").send("Not found\n");
      }
      return sendIndex(reply);
    });
  });
}
