#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx's loader (no build step to go stale).
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
