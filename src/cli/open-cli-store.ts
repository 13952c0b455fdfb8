/**
 * @module
 * Opens the store a command reads. The CLI never creates a store: a missing file is an error, because
 * opening it would leave an empty database behind at a mistyped path. The store is `--store`, else the
 * `STATEK_STORE` environment variable, else the default path; it is shown with its password masked.
 */
import { existsSync } from "node:fs";
import { openStore } from "../store/open-store.ts";
import { maskStoreLocation, parseStoreLocation, resolveStoreSpec } from "../store/store-location.ts";
import type { Store } from "../store/store.ts";
import { formatError } from "../tools/call-tool.ts";
import { CliError } from "../errors/cli-error.ts";

/** Opens the store `--store` (or `STATEK_STORE`) names, failing with exit code 1 when there is none. */
export async function openCliStore(given: string | undefined): Promise<Store> {
  const spec = resolveStoreSpec(given);
  const location = parseCliStore(spec);
  if (location.kind === "sqlite" && location.path !== ":memory:" && !existsSync(location.path)) {
    throw new CliError({ message: `no store at ${location.path} (run a job first, or pass --store or set STATEK_STORE)` });
  }
  try {
    return await openStore(spec);
  } catch (error) {
    // The store's own error names the path (`SQLite cannot open ./x.db: …`) or the server, password masked.
    throw new CliError({ message: `cannot open the store: ${formatError(error)}`, cause: error });
  }
}

/** The store string a command that may create its store uses (`--store`, `STATEK_STORE`, the default), checked. */
export function cliStoreSpec(given: string | undefined): string {
  const spec = resolveStoreSpec(given);
  parseCliStore(spec);
  return spec;
}

/** The store as the CLI shows it: a path, or a URL with its password masked. */
export function showStore(spec: string): string {
  return maskStoreLocation(spec);
}

function parseCliStore(spec: string) {
  try {
    return parseStoreLocation(spec);
  } catch (error) {
    throw new CliError({ message: formatError(error), cause: error });
  }
}
