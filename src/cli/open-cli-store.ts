/**
 * @module
 * Opens the store a command reads. The CLI never creates a store: a missing file is an error, because
 * opening it would leave an empty database behind at a mistyped path.
 */
import { existsSync } from "node:fs";
import { DEFAULT_STORE_PATH, openStore } from "../store/open-store.ts";
import type { Store } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import { CliError } from "../errors/cli-error.ts";

/** Opens the store at `path` (`--store`), failing with exit code 1 when there is none. */
export async function openCliStore(path: string | undefined): Promise<Store> {
  const spec = path ?? DEFAULT_STORE_PATH;
  const isFile = spec !== ":memory:" && !/^[a-z][a-z0-9+.-]*:\/\//i.test(spec);
  if (isFile && !existsSync(spec)) {
    throw new CliError({ message: `no store at ${spec} (run a job first, or pass --store)` });
  }
  try {
    return await openStore(spec);
  } catch (error) {
    // The store's own error names the path (`SQLite cannot open ./x.db: …`).
    throw new CliError({ message: `cannot open the store: ${formatError(error)}`, cause: error });
  }
}
