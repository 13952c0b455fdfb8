/**
 * @module
 * The settings a job runs with that have two forms: a typed option (`new Agent({ chatStyle })`,
 * `statek.submitJob(agent, { toolsScope })`) and a metadata string (`CHAT_STYLE`, `LLM_TOOLS_SCOPE`, … in
 * `metadata` and in prompt definition files). Both forms set the same setting, and one rule resolves them:
 *
 * - at one level, the typed option wins over the metadata string;
 * - a job's own settings (`submitJob`) win over its agent's, the agent's over the process's (`Statek.open`),
 *   and those over the defaults.
 *
 * A job's settings are resolved once, at submit time, into the job's stored metadata (harness limits given to
 * `submitJob` as `MAX_TURNS`, `MAX_COST`, …), so every process that steps the job reads the same. An agent's own
 * harness limits stay in code (`agent.harness`) and apply to its jobs wherever they run.
 */
import { parseModelString } from "../models/model-string.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { JsonValue } from "../store/store.ts";
import { selectScopedTools } from "../tools/llm-tools-scope.ts";
import type { Tool } from "../tools/tool.ts";
import { kindOf } from "../tools/with-article.ts";
import { CHAT_STYLES, chatStyleOf, isChatStyle, type ChatStyle } from "./chat-styles/chat-style.ts";
import { HARNESS_METADATA_KEYS, checkHarnessLimits, type HarnessLimits } from "./harness.ts";
import { parsePostProcessors } from "./parse-post-processors.ts";
import { checkTemperature } from "../models/model-call-settings.ts";
import { defaultDifficultyOf, parseDifficulty, parseModelChoice, type Difficulty } from "./difficulty.ts";
import { parseLocale } from "./locale.ts";
import { TYPE_CHECK_MODES, isTypeCheckMode, typeCheckModeOf, type TypeCheckMode } from "../typecheck/type-check-mode.ts";
import { errorMessage } from "../errors/error-text.ts";

/** The JSON Schema profile of the formal tools offered to the model (`TOOLS_SCHEMA`). */
export type ToolsSchema = "strict" | "plain";

/** Job metadata: settings frozen into each job at submit time, and any application values. */
export type JobMetadata = Readonly<Record<string, JsonValue>>;

/** Settings an agent gives its jobs, and a job may set for itself; each has a metadata form (in parentheses). */
export interface JobSettings {
  /**
   * How the model replies and how its code is found (`CHAT_STYLE`): `MARKDOWN`, `CONSOLE`, `MD_DIALOG` or
   * `DIRECT` (see docs/chat-styles.md). @default "MARKDOWN"
   */
  chatStyle?: ChatStyle;
  /**
   * Which tools are also offered to the model as formal (provider) tools (`LLM_TOOLS_SCOPE`): `SYSTEM`,
   * `APPLICATION` or `ALL`, then `+a,b` / `-c` lists — e.g. `"APPLICATION+brief"`. @default none
   */
  toolsScope?: string;
  /** The JSON Schema profile of formal tools (`TOOLS_SCHEMA`). @default "strict" for OpenAI's provider, else "plain" */
  toolsSchema?: ToolsSchema;
  /** Box the console output shown to the model in `<TAG>…</TAG>` (`XML_BOX_CONSOLE`), e.g. `"CONSOLE"`. */
  xmlBoxConsole?: string;
  /**
   * What the model is shown of classes documented without an ACL (`STATEK_DEFAULT_ACL`): `"GRANT"`, `"DENY"` or
   * ACL rules. @default "GRANT"
   */
  defaultAcl?: string;
  /**
   * Sampling temperature of every model call, 0–1 (`TEMPERATURE`); a `temperature=` option of the `MODEL` string
   * wins. @default the provider's
   */
  temperature?: number;
  /**
   * The provider of a `MODEL` string that names none (`PROVIDER`): with `"openai"`, `MODEL: "gpt-5-mini"` means
   * `openai/gpt-5-mini`.
   */
  provider?: string;
  /**
   * The difficulty a job starts at (`DEFAULT_DIFFICULTY`): `L`, `M` or `H` (or `low`, `medium`, `high`). It picks
   * the model of a `MODEL` mapping and the prompt sections shown; `panic()` raises it. @default "M"
   */
  defaultDifficulty?: Difficulty;
  /**
   * With a job `locale`, add the language rule to the system prompt (`AUTO_LANG_RULE`; `"False"` is false).
   * @default true
   */
  languageRule?: boolean;
  /** With a job `locale`, add the language hint to the user's messages (`AUTO_LANG_HINT`). @default true */
  languageHint?: boolean;
  /**
   * What happens to a model-written cell with type errors (`TYPE_CHECK`): every cell is type-checked against the
   * declarations the model was shown and the workspace's variables before it runs; `"refuse"` does not run a cell
   * with errors (the model reads them; it counts as an exception), `"warn"` prints them and runs it, `"off"` does not
   * check. See docs/typed-cells.md. @default "refuse"
   */
  typeCheck?: TypeCheckMode;
  /**
   * Harness limits (`MAX_TURNS`, `MAX_EXCEPTIONS`, `MAX_CONSECUTIVE_EXCEPTIONS`, `MAX_TOKENS`, `MAX_COST`); a limit
   * left out comes from the next level (the agent, then `Statek.open({ harness })`, then the defaults).
   */
  harness?: HarnessLimits;
}

/** The typed settings that map to one metadata key each (harness limits map to several). */
const METADATA_KEYS = {
  chatStyle: "CHAT_STYLE",
  toolsScope: "LLM_TOOLS_SCOPE",
  toolsSchema: "TOOLS_SCHEMA",
  xmlBoxConsole: "XML_BOX_CONSOLE",
  defaultAcl: "STATEK_DEFAULT_ACL",
  temperature: "TEMPERATURE",
  provider: "PROVIDER",
  defaultDifficulty: "DEFAULT_DIFFICULTY",
  languageRule: "AUTO_LANG_RULE",
  languageHint: "AUTO_LANG_HINT",
  typeCheck: "TYPE_CHECK",
} as const satisfies Record<Exclude<keyof JobSettings, "harness">, string>;

const TOOLS_SCHEMAS: readonly ToolsSchema[] = ["strict", "plain"];
const TAG_NAME = /^[A-Za-z_][\w.-]*$/;

/** Checks the metadata an application passed (a plain object of JSON values); returns a copy. */
export function checkMetadataObject(metadata: unknown, label: string): Record<string, JsonValue> {
  if (metadata === undefined) return {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new TypeError(`${label}: metadata must be a plain object, got ${kindOf(metadata)}`);
  }
  return { ...(metadata as Record<string, JsonValue>) };
}

/**
 * `metadata` with the typed settings written over their metadata keys (the typed option wins). Each typed
 * value is checked here, and a `TypeError` names the option.
 */
export function applyTypedSettings(metadata: Readonly<Record<string, JsonValue>>, settings: JobSettings, label: string): Record<string, JsonValue> {
  const result = { ...metadata };
  const { chatStyle, toolsScope, toolsSchema, xmlBoxConsole, defaultAcl, temperature, provider, defaultDifficulty, languageRule, languageHint, typeCheck } = settings;
  if (chatStyle !== undefined) {
    if (!isChatStyle(chatStyle)) throw new TypeError(`${label}: chatStyle must be one of ${CHAT_STYLES.join(", ")}, got ${JSON.stringify(chatStyle)}`);
    result[METADATA_KEYS.chatStyle] = chatStyle;
  }
  if (toolsScope !== undefined) {
    if (typeof toolsScope !== "string") throw new TypeError(`${label}: toolsScope must be a string such as "ALL" or "APPLICATION+brief", got ${kindOf(toolsScope)}`);
    result[METADATA_KEYS.toolsScope] = toolsScope;
  }
  if (toolsSchema !== undefined) {
    if (!TOOLS_SCHEMAS.includes(toolsSchema)) throw new TypeError(`${label}: toolsSchema must be "strict" or "plain", got ${JSON.stringify(toolsSchema)}`);
    result[METADATA_KEYS.toolsSchema] = toolsSchema;
  }
  if (xmlBoxConsole !== undefined) {
    if (typeof xmlBoxConsole !== "string" || !TAG_NAME.test(xmlBoxConsole)) {
      throw new TypeError(`${label}: xmlBoxConsole must be an XML tag name such as "CONSOLE", got ${JSON.stringify(xmlBoxConsole)}`);
    }
    result[METADATA_KEYS.xmlBoxConsole] = xmlBoxConsole;
  }
  if (defaultAcl !== undefined) {
    if (typeof defaultAcl !== "string") throw new TypeError(`${label}: defaultAcl must be "GRANT", "DENY" or ACL rules, got ${kindOf(defaultAcl)}`);
    result[METADATA_KEYS.defaultAcl] = defaultAcl;
  }
  if (temperature !== undefined) result[METADATA_KEYS.temperature] = checkTemperature(temperature, `${label}: temperature`);
  if (provider !== undefined) {
    if (typeof provider !== "string" || !/^[\w.-]+$/.test(provider)) throw new TypeError(`${label}: provider must be a provider name such as "openai", got ${JSON.stringify(provider)}`);
    result[METADATA_KEYS.provider] = provider;
  }
  if (defaultDifficulty !== undefined) {
    const level = typeof defaultDifficulty === "string" ? parseDifficulty(defaultDifficulty) : undefined;
    if (!level) throw new TypeError(`${label}: defaultDifficulty must be "L", "M" or "H", got ${JSON.stringify(defaultDifficulty)}`);
    result[METADATA_KEYS.defaultDifficulty] = level;
  }
  for (const [name, value] of [["languageRule", languageRule], ["languageHint", languageHint]] as const) {
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw new TypeError(`${label}: ${name} must be true or false, got ${JSON.stringify(value)}`);
    result[METADATA_KEYS[name]] = value;
  }
  if (typeCheck !== undefined) {
    if (!isTypeCheckMode(typeCheck)) throw new TypeError(`${label}: typeCheck must be one of ${TYPE_CHECK_MODES.map((mode) => JSON.stringify(mode)).join(", ")}, got ${JSON.stringify(typeCheck)}`);
    result[METADATA_KEYS.typeCheck] = typeCheck;
  }
  return result;
}

/**
 * The model string given as `new Agent({ model: "openai/gpt-5-mini" })` (it becomes `MODEL`); it is checked with
 * the rest of the settings ({@link checkModelSetting}), where `PROVIDER` is known.
 */
export function checkModelString(model: string, label: string): string {
  if (model.trim() === "") throw new TypeError(`${label}: model must not be empty (a model string such as "openai/gpt-5-mini")`);
  return model;
}

/**
 * Checks `MODEL` (one model string, or a difficulty mapping `L:…,MH:…`, each string with the job's `PROVIDER`
 * for one that names no provider) and `TEMPERATURE`; a `TypeError` starting with `label` names the problem.
 */
export function checkModelSetting(metadata: Readonly<Record<string, JsonValue>>, label: string): void {
  const provider = metadata.PROVIDER;
  if (provider !== undefined && provider !== null && (typeof provider !== "string" || !/^[\w.-]+$/.test(provider.trim()))) {
    throw new TypeError(`${label}: metadata PROVIDER must be a provider name such as "openai", got ${JSON.stringify(provider)}`);
  }
  const model = metadata.MODEL;
  if (model !== undefined && model !== null && model !== "") {
    if (typeof model !== "string") throw new TypeError(`${label}: metadata MODEL must be a string such as "openai/gpt-5-mini"`);
    try {
      const choice = parseModelChoice(model);
      const names = choice.kind === "single" ? [choice.model] : [...new Set(Object.values(choice.models))];
      for (const name of names) parseModelString(name, typeof provider === "string" ? provider : undefined);
    } catch (error) {
      // The error reads `MODEL "x" names no provider; …`: the same setting, in its metadata name.
      throw new TypeError(`${label}: ${(error as Error).message}`, { cause: error });
    }
  }
  const temperature = metadata.TEMPERATURE;
  if (temperature !== undefined && temperature !== null) checkTemperature(temperature, `${label}: metadata TEMPERATURE`);
}

/** A yes/no setting as metadata holds it: `false`, or a string `"false"`/`"no"`/`"off"`/`"0"`, is off. */
export function settingIsOn(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "boolean") return value;
  return !/^(false|no|off|0)$/i.test(String(value).trim());
}

/** The harness limits set in metadata (`MAX_TURNS: 20` or `"20"`); a `TypeError` names a bad value. */
export function harnessFromMetadata(metadata: Readonly<Record<string, JsonValue>>, label: string): HarnessLimits {
  const limits: HarnessLimits = {};
  for (const [name, key] of Object.entries(HARNESS_METADATA_KEYS) as Array<[keyof HarnessLimits, string]>) {
    const value = metadata[key];
    if (value === undefined || value === null) continue;
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number !== "number" || !(number >= 0)) throw new TypeError(`${label}: metadata ${key} must be a number ≥ 0, got ${JSON.stringify(value)}`);
    limits[name] = number;
  }
  return limits;
}

/** `metadata` without its harness keys. */
export function withoutHarnessKeys(metadata: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const keys = new Set<string>(Object.values(HARNESS_METADATA_KEYS));
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !keys.has(key)));
}

/** Harness limits as metadata keys (`{ maxTurns: 5 }` → `{ MAX_TURNS: 5 }`). */
export function harnessToMetadata(limits: HarnessLimits): Record<string, JsonValue> {
  const metadata: Record<string, JsonValue> = {};
  for (const [name, key] of Object.entries(HARNESS_METADATA_KEYS) as Array<[keyof HarnessLimits, string]>) {
    if (limits[name] !== undefined) metadata[key] = limits[name];
  }
  return metadata;
}

/**
 * Checks the settings in a job's (or an agent's) metadata against the agent's tools; returns the chat style.
 * A `TypeError` (or the setting's own error) names the first bad one, so it shows when the agent is made or
 * the job submitted, not at the first model call.
 */
export function checkMetadataSettings(metadata: Readonly<Record<string, JsonValue>>, tools: readonly Tool[], label: string): ChatStyle {
  let style: ChatStyle;
  try {
    style = chatStyleOf(metadata);
  } catch (error) {
    throw new TypeError(`${label}: ${errorMessage(error)}`);
  }
  const text = (key: string): string | undefined => {
    const value = metadata[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw new TypeError(`${label}: metadata ${key} must be a string`);
    return value;
  };
  const scope = text(METADATA_KEYS.toolsScope);
  if (scope !== undefined) {
    try {
      selectScopedTools(tools, scope, style);
    } catch (error) {
      throw new TypeError(`${label}: ${errorMessage(error)}`, { cause: error });
    }
  }
  const schema = text(METADATA_KEYS.toolsSchema)?.trim();
  if (schema && !(TOOLS_SCHEMAS as readonly string[]).includes(schema.toLowerCase())) {
    throw new TypeError(`${label}: metadata TOOLS_SCHEMA must be "strict" or "plain", got ${JSON.stringify(schema)}`);
  }
  const box = text(METADATA_KEYS.xmlBoxConsole);
  if (box && !TAG_NAME.test(box)) throw new TypeError(`${label}: metadata XML_BOX_CONSOLE must be an XML tag name such as "CONSOLE", got ${JSON.stringify(box)}`);
  text(METADATA_KEYS.defaultAcl);
  try {
    typeCheckModeOf(metadata);
  } catch (error) {
    throw new TypeError(`${label}: ${(error as Error).message}`);
  }
  const postProcessors = text("POST_PROCESSORS");
  if (postProcessors !== undefined) {
    try {
      parsePostProcessors(postProcessors);
    } catch (error) {
      throw new TypeError(`${label}: ${errorMessage(error)}`, { cause: error });
    }
  }
  harnessFromMetadata(metadata, label);
  checkModelSetting(metadata, label);
  defaultDifficultyOf(metadata, label);
  const description = metadata.DESCRIPTION;
  if (description !== undefined && description !== null && typeof description !== "string") throw new TypeError(`${label}: metadata DESCRIPTION must be a string`);
  const locale = metadata.LOCALE;
  if (locale !== undefined && locale !== null && locale !== "") {
    try {
      parseLocale(locale);
    } catch (error) {
      throw new TypeError(`${label}: ${(error as Error).message}`, { cause: error });
    }
  }
  return style;
}

/** Checks harness limits given as a typed option (`harness`); `limits` is refused, naming `harness`. */
export function checkHarnessOption(harness: unknown, limits: unknown, label: string): HarnessLimits {
  if (limits !== undefined) throw new TypeError(`${label}: limits is not an option; an agent's limits (turns, exceptions, tokens, cost) are harness`);
  return checkHarnessLimits(harness, label);
}

/**
 * The metadata a job is stored with: its agent's, then the job's own `metadata`, then its typed settings
 * (harness limits as `MAX_…` keys), all checked against the agent's tools.
 */
export function jobMetadata(
  agent: { metadata: JobMetadata; registry: ToolRegistry },
  options: JobSettings & { metadata?: JobMetadata },
  label: string,
): Record<string, JsonValue> {
  const metadata = applyTypedSettings({ ...agent.metadata, ...checkMetadataObject(options.metadata, label) }, options, label);
  if (options.harness !== undefined) Object.assign(metadata, harnessToMetadata(checkHarnessLimits(options.harness, label)));
  checkMetadataSettings(metadata, agent.registry.all, label);
  return metadata;
}
