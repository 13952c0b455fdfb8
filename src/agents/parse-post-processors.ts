/**
 * @module
 * The `POST_PROCESSORS` metadata: a comma-separated list of built-in post-processors with literal options,
 * `FinalCheck(minActions=2), FinalCheck(minActions=5, name="SecondLook")`. Option values are numbers,
 * quoted strings, `true`/`false` or `null`; nothing else is evaluated.
 */
import { FinalCheck } from "./final-check.ts";
import type { PostProcessor } from "./post-processor.ts";

/** Post-processors that `POST_PROCESSORS` can name, and the options each accepts. */
const BUILT_INS: Readonly<Record<string, { options: Record<string, string>; create(options: Record<string, unknown>): PostProcessor }>> = {
  FinalCheck: {
    // `max_llm_actions` is the option's name in STATEK for Python.
    options: { minActions: "minActions", max_llm_actions: "minActions", name: "name" },
    create: (options) => new FinalCheck(options),
  },
};

const CALL = /^\s*([A-Za-z_]\w*)\s*\(([^()]*)\)\s*(,|$)/;
const OPTION = /^\s*([A-Za-z_]\w*)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false|True|False|null|None)\s*(,|$)/;

/**
 * The post-processors a `POST_PROCESSORS` value names.
 *
 * @throws {TypeError} Naming what is wrong: not a list of calls, an unknown post-processor, or an unknown or non-literal option.
 *
 * @example
 * ```ts
 * parsePostProcessors("FinalCheck(minActions=2)"); // [FinalCheck { minActions: 2 }]
 * ```
 */
export function parsePostProcessors(text: string): PostProcessor[] {
  const processors: PostProcessor[] = [];
  let rest = text.trim();
  const invalid = (why: string) => new TypeError(`invalid POST_PROCESSORS ${JSON.stringify(text)}: ${why}`);
  while (rest !== "") {
    const call = CALL.exec(rest);
    if (!call) throw invalid(`expected Name(option=value, …) at ${JSON.stringify(rest.slice(0, 40))}`);
    const [, name, body, separator] = call;
    const builtIn = BUILT_INS[name!];
    if (!builtIn) throw new TypeError(`unknown post-processor '${name}' in POST_PROCESSORS (known: ${Object.keys(BUILT_INS).join(", ")})`);
    const options: Record<string, unknown> = {};
    let args = body!.trim();
    while (args !== "") {
      const option = OPTION.exec(args);
      if (!option) throw invalid(`${name}: expected option=literal at ${JSON.stringify(args.slice(0, 40))}`);
      const [, key, literal, comma] = option;
      const target = builtIn.options[key!];
      if (!target) throw invalid(`${name} has no option '${key}' (options: ${Object.keys(builtIn.options).join(", ")})`);
      options[target] = readLiteral(literal!);
      args = args.slice(option[0].length).trim();
      if (comma === "" && args !== "") throw invalid(`${name}: expected ',' before ${JSON.stringify(args.slice(0, 40))}`);
    }
    processors.push(builtIn.create(options));
    rest = rest.slice(call[0].length).trim();
    if (separator === "" && rest !== "") throw invalid(`expected ',' before ${JSON.stringify(rest.slice(0, 40))}`);
  }
  return processors;
}

function readLiteral(literal: string): unknown {
  if (literal === "true" || literal === "True") return true;
  if (literal === "false" || literal === "False") return false;
  if (literal === "null" || literal === "None") return null;
  if (literal.startsWith("'")) return JSON.parse(`"${literal.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`);
  return JSON.parse(literal);
}
