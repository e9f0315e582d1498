#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx's loader (no build step to go stale).
// First, before the loader: the hidden classes every request's objects need (ADR 0057).
import "../src/lib/object-shapes.mjs";
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
