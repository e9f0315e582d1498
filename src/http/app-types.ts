// The HTTP app's type, apart from buildApp so routes can name it without importing the module that
// imports them (no import cycle, not even a type-only one). Each route file declares its own deps;
// buildApp's are their sum (AppDeps in app.ts).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";

export type App = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
