import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { InvalidStoreUrlError } from "../errors/invalid-store-url-error.ts";
import { DEFAULT_STORE_PATH, maskStoreLocation, parseStoreLocation, resolveStoreSpec } from "./store-location.ts";

describe("store strings", () => {
  it("opens paths and file: URLs as SQLite, postgres URLs as PostgreSQL", () => {
    assert.deepEqual(parseStoreLocation("./data/jobs.db"), { kind: "sqlite", path: "./data/jobs.db" });
    assert.deepEqual(parseStoreLocation(":memory:"), { kind: "sqlite", path: ":memory:" });
    assert.deepEqual(parseStoreLocation("file:data/jobs.db"), { kind: "sqlite", path: "data/jobs.db" });
    assert.deepEqual(parseStoreLocation("file:///var/lib/statek/jobs.db"), { kind: "sqlite", path: "/var/lib/statek/jobs.db" });
    assert.deepEqual(parseStoreLocation("postgres://u:p@h/db"), { kind: "postgres", connectionString: "postgres://u:p@h/db" });
    assert.deepEqual(parseStoreLocation("PostgreSQL://u@h/db"), { kind: "postgres", connectionString: "PostgreSQL://u@h/db" });
  });

  it("refuses any other scheme, naming it and the accepted ones, password masked", () => {
    for (const [spec, scheme] of [["postgress://u:secret@127.0.0.1/db", "postgress"], ["mysql://x@y/z", "mysql"], ["sqlite://jobs.db", "sqlite"]] as const) {
      assert.throws(() => parseStoreLocation(spec), (error: unknown) => {
        assert.ok(error instanceof InvalidStoreUrlError);
        assert.equal(error.scheme, scheme);
        assert.match(error.message, new RegExp(`unknown store URL scheme '${scheme}'`));
        assert.match(error.message, /postgres:\/\/ or postgresql:\/\/ URL, a file: URL, a file path or ":memory:"/);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
    }
    assert.throws(() => parseStoreLocation("file:"), /names no file/);
    assert.throws(() => parseStoreLocation("file://remote-host/jobs.db"), /not a local file URL/);
  });

  it("masks passwords in URLs, parseable or not", () => {
    assert.equal(maskStoreLocation("postgres://app:s3cret@db:5432/jobs?schema=a"), "postgres://app:***@db:5432/jobs?schema=a");
    assert.equal(maskStoreLocation("postgres://app@db/jobs?password=s3cret"), "postgres://app@db/jobs?password=***");
    assert.equal(maskStoreLocation("postgress://u:secret@127.0.0.1/db"), "postgress://u:***@127.0.0.1/db");
    assert.doesNotMatch(maskStoreLocation("weird://u:se cret@[bad/db"), /se cret/);
    assert.equal(maskStoreLocation("./statek-data/statek.db"), "./statek-data/statek.db");
  });

  it("reads STATEK_STORE when no store is given", () => {
    assert.equal(resolveStoreSpec(undefined, {}), DEFAULT_STORE_PATH);
    assert.equal(resolveStoreSpec(undefined, { STATEK_STORE: "/tmp/ops.db" }), "/tmp/ops.db");
    assert.equal(resolveStoreSpec(undefined, { STATEK_STORE: "  " }), DEFAULT_STORE_PATH);
    assert.equal(resolveStoreSpec("./given.db", { STATEK_STORE: "/tmp/ops.db" }), "./given.db");
  });
});
