/**
 * @module
 * `statek/postgres`: the PostgreSQL store, for applications that build it themselves (`Statek.open({ store:
 * "postgres://…" })` needs no import). The only entry that loads `pg`. This entry only re-exports.
 */
// First: on a Node.js too old for STATEK, importing it fails with a message saying so.
import "../../runtime/check-node-version.ts";

/** The store, its configuration and the password-masking rule its errors and logs follow. */
export { createPostgresStore, PostgresStore } from "./postgres-store.ts";
export type { PostgresStoreConfig } from "./postgres-config.ts";
export { maskConnectionString } from "./postgres-config.ts";
export type { WakeupMode } from "./postgres-wakeups.ts";
/** The schema's migrations (for an operator who applies them ahead of a deploy). */
export { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./postgres-migrations.ts";
export type { PostgresMigration } from "./postgres-migrations.ts";
