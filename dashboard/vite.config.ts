// Builds the dashboard into dashboard/dist, served by the API at /dashboard/ (src/http/dashboard.ts).
// No inline scripts or styles: the pages run under a self-only Content-Security-Policy.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/dashboard/",
  publicDir: "public",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "react" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
    sourcemap: false,
  },
});
