import { StatekError } from "./statek-error.ts";

/**
 * The AI SDK provider package a `MODEL` string needs is not installed (provider packages are optional peer
 * dependencies, loaded on first use), or it failed to load.
 *
 * @example
 * ```ts
 * await resolveModel("anthropic/claude-sonnet-4-5");
 * // LoadProviderPackageError: MODEL 'anthropic/claude-sonnet-4-5' needs the package @ai-sdk/anthropic: npm install @ai-sdk/anthropic
 * ```
 */
export class LoadProviderPackageError extends StatekError {
  readonly model: string;
  /** The npm package to install. */
  readonly packageName: string;

  constructor({ model, packageName, cause }: { model: string; packageName: string; cause?: unknown }) {
    const missing = isModuleNotFound(cause, packageName);
    const detail = !missing && cause instanceof Error ? ` (loading it failed: ${cause.message})` : "";
    super({
      name: "LoadProviderPackageError",
      message: missing
        ? `MODEL '${model}' needs the package ${packageName}: npm install ${packageName}`
        : `MODEL '${model}' needs the package ${packageName}, which could not be loaded${detail}`,
      cause,
    });
    this.model = model;
    this.packageName = packageName;
  }
}

/** True when `error` says that `packageName` itself (not one of its imports) is not installed. */
export function isModuleNotFound(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return error instanceof Error && error.message.includes(`'${packageName}'`);
}
