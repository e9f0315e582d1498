// pino-pretty as a synchronous destination, loaded only when a terminal will read the log.
import { createRequire } from "node:module";
import type { DestinationStream } from "pino";

export function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)("pino-pretty") as (options: object) => DestinationStream;
  return pretty({ colorize: true, sync: true, translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" });
}
