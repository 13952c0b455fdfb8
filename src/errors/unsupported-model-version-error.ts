import { StatekError } from "./statek-error.ts";

/**
 * A value given as a model is not an AI SDK language model of a specification version STATEK can call
 * (v2, v3 or v4): a newer or older specification, or a value that is not a model at all.
 *
 * @example
 * ```ts
 * await generateReply({ specificationVersion: "v9", provider: "acme", modelId: "m1" } as never, request);
 * // UnsupportedModelVersionError: unsupported language model specification version "v9" (model acme/m1); …
 * ```
 */
export class UnsupportedModelVersionError extends StatekError {
  /** The model's `specificationVersion`, or `undefined` when the value has none (it is not a model). */
  readonly version: string | undefined;
  /** The model's provider, when it has one. */
  readonly provider: string | undefined;
  /** The model's id, when it has one. */
  readonly modelId: string | undefined;

  constructor({ version, provider, modelId, received }: {
    version: string | undefined;
    provider?: string;
    modelId?: string;
    /** What was given instead of a model (`a string "openai/gpt-5"`, `undefined`), used when `version` is missing. */
    received?: string;
  }) {
    const supported = "STATEK calls AI SDK language models of specification v2, v3 and v4";
    const which = provider !== undefined || modelId !== undefined ? ` (model ${provider ?? "?"}/${modelId ?? "?"})` : "";
    super({
      name: "UnsupportedModelVersionError",
      message: version === undefined
        ? `expected an AI SDK language model, got ${received ?? "a value without specificationVersion"}; ${supported}`
        : `unsupported language model specification version "${version}"${which}; ${supported}`,
    });
    this.version = version;
    this.provider = provider;
    this.modelId = modelId;
  }
}
