/**
 * @module
 * Turns what the application configured (a path, a URL or a ready store) into a migrated {@link Store}.
 */

import type { Store } from "./store.ts";
import { createSqliteStore } from "./sqlite/sqlite-store.ts";

/** Where the SQLite store lives when the application names none. */
export const DEFAULT_STORE_PATH = "./statek-data/statek.db";

/**
 * Opens a store and brings its schema up to date.
 *
 * - a {@link Store} instance is migrated and returned as is;
 * - `":memory:"` or a file path opens a SQLite store (missing directories are created);
 * - a `postgres://` or `postgresql://` URL opens a PostgreSQL store (`pg` is loaded then; the URL's `schema`
 *   and `pool_size` parameters configure it; errors show the URL with its password masked).
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
  const store = /^postgres(ql)?:\/\//i.test(spec)
    ? // Loaded on first use, so that an application on SQLite never loads pg.
      (await import("./postgres/postgres-store.ts")).createPostgresStore({ connectionString: spec })
    : createSqliteStore({ path: spec });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
