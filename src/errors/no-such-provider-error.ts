import { StatekError } from "./statek-error.ts";

/**
 * A `MODEL` string names a provider the model registry does not know.
 *
 * @example
 * ```ts
 * await resolveModel("acme/m1"); // NoSuchProviderError: MODEL 'acme/m1': no provider 'acme' is registered (known: anthropic, google, …)
 * ```
 */
export class NoSuchProviderError extends StatekError {
  readonly model: string;
  readonly provider: string;
  readonly knownProviders: string[];

  constructor({ model, provider, knownProviders }: { model: string; provider: string; knownProviders: string[] }) {
    super({
      name: "NoSuchProviderError",
      message: `MODEL '${model}': no provider '${provider}' is registered (known: ${knownProviders.join(", ")}); ` +
        "register one with Statek.open({ models: { providers: [...] } }) or pass the agent a model",
    });
    this.model = model;
    this.provider = provider;
    this.knownProviders = knownProviders;
  }
}
