/**
 * OpenTelemetry spans of a job, collected with the SDK's in-memory exporter: a step per `statek.step`, the model
 * call (GenAI attributes), each cell and tool call, an error — names, parent/child links and attributes — and
 * the trace context carried from `submitJob` to the steps, in this process and in another `Statek` on the store.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { Agent, Statek, scriptedModel, tool } from "../src/index.ts";
import { AsyncContextManager } from "./support/async-context-manager.ts";

const ts = (code: string) => "```ts\n" + code + "\n```";
const exporter = new InMemorySpanExporter();

const lookup = tool({
  name: "lookup",
  description: "Looks a key up.",
  params: z.object({ key: z.string().describe("The key.") }),
  run: ({ key }) => `value of ${key}`,
});
const explode = tool({ name: "explode", description: "Always fails.", run: () => { throw new RangeError("boom"); } });

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("OpenTelemetry spans", () => {
  let dir: string;
  before(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncContextManager());
    dir = mkdtempSync(join(tmpdir(), "statek-telemetry-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("trace a job: steps, the model calls, cells with their crossings, tool calls and a tool's error", async () => {
    exporter.reset();
    const model = scriptedModel([
      { text: ts("const found = await lookup('a')\ntry { await explode() } catch (error) { print(error.message) }"), usage: { inputTokens: 120, outputTokens: 30 } },
      { toolCalls: [{ name: "lookup", args: { key: "b" }, id: "call-b" }] },
      ts("exit(found)"),
    ], { provider: "openai.chat", modelId: "gpt-5-mini" });
    const agent = new Agent({ role: "traced", model, tools: [lookup, explode], toolsScope: "ALL" });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "DONE");
    const spans = exporter.getFinishedSpans();

    const steps = spans.filter((span) => span.name === "statek.step");
    assert.equal(steps.length, 4, "one span per step");
    assert.deepEqual(steps.map((span) => span.attributes["statek.job.status"]), ["STARTED", "STARTED", "STARTED", "DONE"]);
    assert.ok(steps.every((span) => span.attributes["statek.job.id"] === id && span.attributes["statek.job.role"] === "traced"));

    const chats = spans.filter((span) => span.name === "chat gpt-5-mini");
    assert.equal(chats.length, 3);
    assert.deepEqual(chats.map(parentOf), steps.slice(0, 3).map(idOf), "each model call under its step");
    const first = chats[0]!.attributes;
    assert.equal(first["gen_ai.operation.name"], "chat");
    assert.equal(first["gen_ai.system"], "openai");
    assert.equal(first["gen_ai.request.model"], "gpt-5-mini");
    assert.equal(first["gen_ai.response.model"], "gpt-5-mini");
    assert.equal(first["gen_ai.usage.input_tokens"], 120);
    assert.equal(first["gen_ai.usage.output_tokens"], 30);
    assert.deepEqual(first["gen_ai.response.finish_reasons"], ["stop"]);
    assert.deepEqual(chats[1]!.attributes["gen_ai.response.finish_reasons"], ["tool-calls"]);

    const cells = spans.filter((span) => span.name === "statek.cell");
    assert.equal(cells.length, 2, "the first reply's cell and the last one's");
    assert.equal(parentOf(cells[0]!), idOf(steps[1]!), "a reply runs in the next step");
    assert.equal(cells[0]!.attributes["statek.cell.part"], "cell");
    assert.ok(Number(cells[0]!.attributes["statek.cell.crossings"]) >= 2, "its two tool calls crossed");
    assert.equal(cells[0]!.status.code, SpanStatusCode.UNSET, "the cell caught the error");

    const calls = spans.filter((span) => span.name.startsWith("execute_tool "));
    assert.deepEqual(calls.map((span) => span.name), ["execute_tool lookup", "execute_tool explode", "execute_tool lookup"]);
    const [fromCode, failed, formal] = calls as [ReadableSpan, ReadableSpan, ReadableSpan];
    assert.equal(parentOf(fromCode), idOf(cells[0]!));
    assert.equal(fromCode.attributes["gen_ai.tool.name"], "lookup");
    assert.equal(fromCode.attributes["statek.tool.origin"], "code");
    assert.equal(fromCode.status.code, SpanStatusCode.UNSET);
    assert.equal(parentOf(failed), idOf(cells[0]!));
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(failed.status.message, "RangeError: boom");
    assert.equal(failed.attributes["error.type"], "RangeError");
    assert.equal(failed.events[0]?.name, "exception");
    assert.equal(parentOf(formal), idOf(steps[2]!), "a formal call runs under its step");
    assert.equal(formal.attributes["gen_ai.tool.call.id"], "call-b");
    assert.equal(formal.attributes["statek.tool.origin"], "formal");
    for (const span of [...chats, ...cells, ...calls]) assert.ok(span.endTime[0] + span.endTime[1] > 0 && span.ended);
    assert.equal(new Set(spans.map((span) => span.spanContext().traceId)).size, 4, "without a submitting trace, each step starts its own");
  });

  it("mark a failed model call and the step that failed the job", async () => {
    exporter.reset();
    const agent = new Agent({ role: "exhausted", model: scriptedModel([]) });
    const statek = await Statek.open({ store: ":memory:", agents: [agent] });
    const { id } = await statek.submitJob(agent);
    const view = await statek.runJob(id);
    await statek.close();
    assert.equal(view.status, "FAILED");
    const [chat] = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "));
    const [step] = exporter.getFinishedSpans().filter((span) => span.name === "statek.step");
    assert.equal(chat!.status.code, SpanStatusCode.ERROR);
    assert.equal(chat!.attributes["error.type"], "ScriptExhaustedError");
    assert.equal(parentOf(chat!), idOf(step!));
    assert.equal(step!.status.code, SpanStatusCode.ERROR);
    assert.equal(step!.attributes["error.type"], "JobFailedError");
    assert.equal(step!.attributes["statek.job.status"], "FAILED");
  });

  it("carry the trace a job was submitted in to its steps, also in another Statek on the same store", async () => {
    exporter.reset();
    const store = join(dir, "traced.db");
    const agent = new Agent({ role: "carried", model: scriptedModel([ts("1"), ts("exit()")]) });
    const client = await Statek.open({ store, agents: [agent] });
    const request = trace.getTracer("app").startSpan("POST /jobs");
    const { id } = await context.with(trace.setSpan(context.active(), request), () => client.submitJob(agent));
    request.end();
    await client.close();
    // A worker elsewhere: no warm session, the trace context comes from the stored submitted record.
    const worker = await Statek.open({ store, agents: [agent] });
    assert.equal((await worker.runJob(id)).status, "DONE");
    await worker.close();
    const steps = exporter.getFinishedSpans().filter((span) => span.name === "statek.step");
    assert.equal(steps.length, 3);
    for (const step of steps) {
      assert.equal(step.spanContext().traceId, request.spanContext().traceId);
      assert.equal(parentOf(step), request.spanContext().spanId);
    }
    const reader = await Statek.open({ store });
    const record = (await reader.getJob(id))!.history[0]!;
    await reader.close();
    assert.ok(record.kind === "submitted");
    assert.equal(record.data.trace?.traceparent, `00-${request.spanContext().traceId}-${request.spanContext().spanId}-01`);
  });

  it("a child job's steps join the trace of the step that started it", async () => {
    exporter.reset();
    const researcher = new Agent({ role: "researcher", model: scriptedModel([ts("exit(topic + '!')")]) });
    const research = tool({
      name: "research",
      description: "Starts a child job.",
      params: z.object({ topic: z.string().describe("The topic.") }),
      run: ({ topic }, ctx) => ctx.startJob(researcher, { vars: { topic } }),
    });
    const parent = new Agent({ role: "lead", tools: [research], model: scriptedModel([ts("const child = research('cats')\nexit(await child)")]) });
    const statek = await Statek.open({ store: join(dir, "children.db"), agents: [parent, researcher] });
    try {
      const { id } = await statek.submitJob(parent);
      assert.equal((await statek.runJob(id)).status, "SUSPENDED");
      const [child] = await statek.listJobs({ role: "researcher" });
      assert.equal((await statek.runJob(child!.id)).status, "DONE");
      assert.equal((await statek.runJob(id)).exitStatus, "cats!");
    } finally {
      await statek.close();
    }
    const steps = exporter.getFinishedSpans().filter((span) => span.name === "statek.step");
    const parentSteps = steps.filter((span) => span.attributes["statek.job.role"] === "lead");
    const childSteps = steps.filter((span) => span.attributes["statek.job.role"] === "researcher");
    assert.ok(parentSteps.length >= 1 && childSteps.length >= 1, `${parentSteps.length} parent steps, ${childSteps.length} child steps`);
    // The parent's step that ran the cell starting the child.
    const starter = parentSteps.find((span) => idOf(span) === parentOf(childSteps[0]!));
    assert.ok(starter, "the child's first step is under a step of its parent");
    for (const step of childSteps) {
      assert.equal(step.spanContext().traceId, starter.spanContext().traceId, "the child's step is in its parent's trace");
      assert.equal(parentOf(step), idOf(starter));
    }
  });
});
