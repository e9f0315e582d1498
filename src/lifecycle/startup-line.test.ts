import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listeningLine } from "./startup-line.js";

describe("listeningLine", () => {
  it("names localhost for a wildcard bind, with the dashboard's address", () => {
    assert.equal(
      listeningLine({ address: "0.0.0.0", family: "IPv4", port: 8080 }, "0.0.0.0"),
      "leadcheck listening on http://localhost:8080 — dashboard http://localhost:8080/dashboard/",
    );
    assert.equal(
      listeningLine({ address: "::", family: "IPv6", port: 9000 }, "::"),
      "leadcheck listening on http://localhost:9000 — dashboard http://localhost:9000/dashboard/",
    );
  });

  it("keeps a configured host and brackets IPv6 addresses", () => {
    assert.match(
      listeningLine({ address: "127.0.0.1", family: "IPv4", port: 1 }, "127.0.0.1"),
      /http:\/\/127\.0\.0\.1:1 /,
    );
    assert.match(
      listeningLine({ address: "::1", family: "IPv6", port: 2 }, "::1"),
      /http:\/\/\[::1\]:2\/dashboard\//,
    );
  });
});
