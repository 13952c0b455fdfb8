/**
 * @module
 * Turns what the application configured (a path, a URL or a ready store) into a migrated {@link Store}.
 */

import type { Store } from "./store.ts";
import { createSqliteStore } from "./sqlite/sqlite-store.ts";
import { DEFAULT_STORE_PATH, parseStoreLocation } from "./store-location.ts";

export { DEFAULT_STORE_PATH } from "./store-location.ts";

/**
 * Opens a store and brings its schema up to date.
 *
 * - a {@link Store} instance is migrated and returned as is;
 * - `":memory:"`, a file path or a `file:` URL opens a SQLite store (missing directories are created);
 * - a `postgres://` or `postgresql://` URL opens a PostgreSQL store (`pg` is loaded then; the URL's `schema`
 *   and `pool_size` parameters configure it; errors show the URL with its password masked);
 * - any other `scheme://` is an `InvalidStoreUrlError` naming the scheme and the accepted ones.
 *
 * @default DEFAULT_STORE_PATH
 * @example
 * ```ts
 * const store = await openStore("./statek-data/statek.db");
 * ```
 */
export async function openStore(spec: string | Store = DEFAULT_STORE_PATH): Promise<Store> {
  if (typeof spec !== "string") {
    await spec.migrate();
    return spec;
  }
  const location = parseStoreLocation(spec);
  const store = location.kind === "postgres"
    ? // Loaded on first use, so that an application on SQLite never loads pg.
      (await import("./postgres/postgres-store.ts")).createPostgresStore({ connectionString: location.connectionString })
    : createSqliteStore({ path: location.path });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
