import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import pino from "pino";
import { lazyRequestLogger } from "./request-logger.js";

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level, redact: ["*.secret", 'req.headers["x-api-key"]'] }, stream);
  return { logger, lines };
}

describe("lazyRequestLogger", () => {
  it("writes nothing and builds no child for lines under the level", () => {
    const { logger, lines } = capture("warn");
    let children = 0;
    const counting = Object.assign(Object.create(logger), {
      child: (...args: Parameters<typeof logger.child>) => {
        children++;
        return logger.child(...args);
      },
    });
    const log = lazyRequestLogger(counting, { reqId: "r1" }, {});
    log.info({ req: { url: "/x" } }, "incoming request");
    log.debug("detail");
    assert.equal(lines.length, 0);
    assert.equal(children, 0);
    assert.equal(log.level, "warn");
  });

  it("writes lines at or over the level with the request's bindings, redacted", () => {
    const { logger, lines } = capture("warn");
    const log = lazyRequestLogger(logger, { reqId: "r2" }, {});
    log.warn({ hook: { secret: "s3cret" } }, "careful");
    log.error(new Error("boom"));
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.reqId, "r2");
    assert.equal(lines[0]!.msg, "careful");
    assert.deepEqual(lines[0]!.hook, { secret: "[Redacted]" });
    assert.equal(lines[1]!.reqId, "r2");
    assert.equal((lines[1]!.err as { message: string }).message, "boom");
  });

  it("honours a route's own level, and its children carry the request's bindings", () => {
    const { logger, lines } = capture("warn");
    const log = lazyRequestLogger(logger, { reqId: "r3" }, { level: "debug" });
    assert.equal(log.level, "debug");
    log.debug("seen at the route's level");
    log.trace("not seen");
    log.child({ part: "inner" }).warn("from a child");
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.part]),
      [
        ["r3", "seen at the route's level", undefined],
        ["r3", "from a child", "inner"],
      ],
    );
  });

  it("follows the parent's level while no line has been written", () => {
    const { logger, lines } = capture("warn");
    const log = lazyRequestLogger(logger, { reqId: "r4" }, {});
    logger.level = "info";
    log.info("now written");
    assert.equal(lines.length, 1);
  });
});
