import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseZones } from "./dnsbl-zones.js";

describe("parseZones", () => {
  it("keeps the default when unset and turns lists off with none, off or empty", () => {
    assert.deepEqual(parseZones(undefined, ["dbl.spamhaus.org"]), ["dbl.spamhaus.org"]);
    for (const off of ["", "none", "OFF", " none "]) assert.deepEqual(parseZones(off, ["x"]), []);
    assert.deepEqual(parseZones(" Multi.SURBL.org., dbl.spamhaus.org ", []), [
      "multi.surbl.org",
      "dbl.spamhaus.org",
    ]);
  });
});
