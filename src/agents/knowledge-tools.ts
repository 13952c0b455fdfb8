/**
 * @module
 * The system tools through which the model consults what its agent knows: `listExamples(start?, limit?)` and
 * `showExample(id?)` over the agent's examples, `listDocuments(topic?, start?, limit?)` and
 * `showDocument(idOrTitle, start?, limit?)` over its documents (those the job's role may read), and `panic()`,
 * which raises the job's difficulty. Each prints what it found, so agent code and formal calls read the same.
 * The tools are made per agent, bound to its examples and documents.
 */
import { z } from "zod";
import { jobRequest, type JobChange } from "../tools/job-request.ts";
import { tool, type Tool, type ToolContext } from "../tools/tool.ts";
import { chatStyleOf } from "./chat-styles/chat-style.ts";
import { chatStyleRules } from "./chat-styles/chat-styles.ts";
import { higherDifficulty, raiseDifficulty } from "./difficulty.ts";
import { documentsFor, lookupName, type AgentDocument } from "./documents.ts";
import type { Example } from "./examples.ts";

const index = (what: string) => z.number().int().min(0).optional().describe(what);

/** One page of a list: the header, the lines, and how to see more. */
function page(header: string, lines: readonly string[], start: number, limit: number, more: (next: number) => string): string {
  const shown = lines.slice(start, start + limit);
  const last = start + shown.length;
  const out = [`${header} (${shown.length ? `${start}–${last - 1} of ${lines.length}` : `none of ${lines.length} from ${start}`})`, ...shown];
  if (last < lines.length) out.push(`(more: ${more(last)})`);
  return out.join("\n");
}

/** An example in the job's chat style: its warmup, then its cells, output and prose in order. */
export function renderExample(example: Example, ctx: Pick<ToolContext, "job">): string {
  let rules;
  try {
    rules = chatStyleRules(chatStyleOf(ctx.job.metadata as Record<string, never>));
  } catch {
    rules = chatStyleRules("MARKDOWN");
  }
  const level = example.difficulty ? ` [${example.difficulty}]` : "";
  const parts = [`// --- EXAMPLE ${example.id}: ${example.name}${level} ---`];
  if (example.warmup) parts.push("// Given (set up before the example):", rules.formatCode(example.warmup));
  for (const step of example.steps) {
    if (step.kind === "code") parts.push(rules.formatCode(step.text));
    else if (step.kind === "console") parts.push(rules.formatConsole(step.text.split("\n")));
    else parts.push(rules.name === "CONSOLE" ? step.text.split("\n").map((line) => `// ${line}`).join("\n") : step.text);
  }
  parts.push("// --- END OF EXAMPLE ---");
  return parts.join("\n");
}

/** `listExamples` and `showExample` over `examples`. */
export function exampleTools(examples: readonly Example[]): Tool[] {
  const listExamples = tool({
    name: "listExamples",
    description: "Print the worked examples you can look at, by id (a page at a time).",
    params: z.object({ start: index("The first id to list. Default 0."), limit: z.number().int().min(1).max(100).optional().describe("How many. Default 10.") }),
    returns: "Nothing; the list is printed.",
    system: true,
    readOnly: true,
    run: ({ start = 0, limit = 10 }, ctx) => {
      if (!examples.length) return void ctx.print("No examples.");
      const lines = examples.map((example) => `${example.id}: ${example.name}${example.difficulty ? ` [${example.difficulty}]` : ""}`);
      ctx.print(page("Examples (id: name)", lines, start, limit, (next) => `listExamples(${next}, ${limit})`));
    },
  });
  const showExample = tool({
    name: "showExample",
    description: "Print a worked example: its code and console output, as you would write them. Without an id, the example the " +
      "workspace variable defaultExampleId names.",
    params: z.object({ id: z.union([z.number(), z.string()]).optional().describe("The example's id (from listExamples) or its name.") }),
    returns: "Nothing; the example is printed.",
    system: true,
    run: ({ id }, ctx) => {
      const key = id ?? ctx.variable("defaultExampleId")?.value;
      if (key === undefined || key === null) return void ctx.print("No example id given (and no defaultExampleId variable); listExamples() lists them.");
      const found = lookupName(key, examples.map((example) => example.name), "example");
      if ("problem" in found) return void ctx.print(`Example not found: ${found.problem}.`);
      const example = examples[found.index]!;
      ctx.print(renderExample(example, ctx));
      // A harder example than the job's level raises the job to it.
      const current = ctx.job.difficulty;
      if (!example.difficulty || !current || higherDifficulty(current, example.difficulty) === current) return undefined;
      return jobRequest(undefined, [{ type: "difficulty", level: example.difficulty }]);
    },
  });
  return [listExamples, showExample];
}

/** `listDocuments` and `showDocument` over `documents`, each job seeing those its role may read. */
export function documentTools(documents: readonly AgentDocument[]): Tool[] {
  const visible = (ctx: ToolContext) => documentsFor(documents, ctx.job.role);
  const topicsOf = (list: readonly AgentDocument[]) => [...new Set(list.map((document) => document.topic))];
  const listDocuments = tool({
    name: "listDocuments",
    description: "Print the topics of the documents you can read; with a topic, its documents by id (a page at a time).",
    params: z.object({
      topic: z.union([z.number(), z.string()]).optional().describe("A topic's id or name. Without it, the topics are listed."),
      start: index("The first entry to list. Default 0."),
      limit: z.number().int().min(1).max(200).optional().describe("How many. Default 25."),
    }),
    returns: "Nothing; the list is printed.",
    system: true,
    readOnly: true,
    run: ({ topic, start = 0, limit = 25 }, ctx) => {
      const list = visible(ctx);
      if (!list.length) return void ctx.print("No documents.");
      const topics = topicsOf(list);
      if (topic === undefined) {
        const lines = topics.map((name, id) => `${id}: ${name} (${list.filter((document) => document.topic === name).length} documents)`);
        return void ctx.print(page("Topics (id: topic)", lines, start, limit, (next) => `listDocuments(undefined, ${next}, ${limit})`));
      }
      const found = lookupName(topic, topics, "topic");
      if ("problem" in found) return void ctx.print(`Topic not found: ${found.problem}.`);
      const name = topics[found.index]!;
      const lines = list.flatMap((document, id) => (document.topic === name ? [`${id}: ${document.title}`] : []));
      ctx.print(page(`Documents in ${name} (id: title)`, lines, start, limit, (next) => `listDocuments(${JSON.stringify(name)}, ${next}, ${limit})`));
    },
  });
  const showDocument = tool({
    name: "showDocument",
    description: "Print a document, by its id (from listDocuments) or its title (exact, or a part only it has); long ones a page of lines at a time.",
    params: z.object({
      idOrTitle: z.union([z.number(), z.string()]).describe("The document's id or title."),
      start: index("The first line to print (0-based). Default 0."),
      limit: z.number().int().min(1).max(1000).optional().describe("How many lines. Default 200."),
    }),
    returns: "Nothing; the document is printed.",
    system: true,
    readOnly: true,
    run: ({ idOrTitle, start = 0, limit = 200 }, ctx) => {
      const list = visible(ctx);
      const found = lookupName(idOrTitle, list.map((document) => document.title), "document");
      if ("problem" in found) return void ctx.print(`Document not found: ${found.problem}.`);
      const document = list[found.index]!;
      const lines = document.body.split("\n");
      const shown = lines.slice(start, start + limit);
      const range = lines.length > shown.length ? ` (lines ${start}–${start + shown.length - 1} of ${lines.length})` : "";
      const more = start + shown.length < lines.length ? `\n(more: showDocument(${found.index}, ${start + shown.length}))` : "";
      ctx.print(`# ${document.title}${range}\n${shown.join("\n")}${more}`);
    },
  });
  return [listDocuments, showDocument];
}

/** `panic()`: raises the job's difficulty one level (an error above H). */
export const panicTool: Tool = tool({
  name: "panic",
  description: "Raise the job's difficulty one level (L → M → H) when the task is harder than it looked: from your next reply on, " +
    "a stronger model and the instructions for harder tasks.",
  returns: "The new difficulty.",
  system: true,
  run: (_args, ctx) => {
    const level = raiseDifficulty(ctx.job.difficulty ?? "M");
    const changes: JobChange[] = [{ type: "difficulty", level }];
    return jobRequest(`difficulty raised to ${level}`, changes);
  },
});
