/**
 * bench/ui: the web UI over a SQLite store of 100,000 jobs (the figures it prints).
 *
 * - Time to first byte of the jobs page (`/`, first page and a filtered one, and a page deep in the list by
 *   cursor) and of a job with 500 turns (~2,000 history records), median of 15 requests each.
 * - Memory of the UI process (RSS and heap) before and with 20 open live pages (event streams).
 *
 * Run: `npm run bench -- ui` (or `node bench/ui.ts`). Building the store takes a while.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeHistoryRow } from "../src/jobs/history/history-codec.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import { sampleJob } from "../src/store/store.suite.ts";
import type { HistoryRow, JobStatus } from "../src/store/store.ts";
import { startUi } from "../src/ui/serve-ui.ts";
import type { UiActions } from "../src/ui/ui-actions.ts";

const JOBS = 100_000;
const TURNS = 500;
const STATUSES: JobStatus[] = ["DONE", "DONE", "DONE", "FAILED", "SUSPENDED", "READY", "CANCELLED"];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeToFirstByte(url: string): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < 16; run++) {
    const start = performance.now();
    const response = await fetch(url);
    const reader = response.body!.getReader();
    await reader.read();
    const elapsed = performance.now() - start;
    while (!(await reader.read()).done);
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    if (run > 0) samples.push(elapsed); // the first warms the prepared statements
  }
  return median(samples);
}

function turnRecords(): HistoryRow[] {
  const rows: HistoryRow[] = [encodeHistoryRow(0, "submitted", Date.now(), { vars: [], params: {} })];
  for (let turn = 1; turn <= TURNS; turn++) {
    const code = `const r${turn} = await lookup("word ${turn}")\nprint(r${turn})\n// turn ${turn}`;
    const usage = { inputTokens: 1000 + turn, cachedInputTokens: 0, outputTokens: 40 };
    rows.push(encodeHistoryRow(rows.length, "model-response", Date.now(), { turn, text: code, code, toolCalls: [], reasoning: [], usage, model: "openai/gpt-5-mini" }));
    rows.push(encodeHistoryRow(rows.length, "tool-call", Date.now(), { name: "lookup", origin: "code", args: `"word ${turn}"`, result: `"a meaning of word ${turn}"`, durationMs: 1.5 }));
    rows.push(encodeHistoryRow(rows.length, "console", Date.now(), { stream: "out", text: `a meaning of word ${turn}` }));
    rows.push(encodeHistoryRow(rows.length, "variables", Date.now(), { put: [`r${turn}`], deleted: [] }));
  }
  return rows;
}

/** Runs the benchmark and prints its figures. */
export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "statek-bench-ui-"));
  const store = createSqliteStore({ path: join(dir, "statek.db") });
  try {
    const base = Date.UTC(2026, 0, 1);
    const started = performance.now();
    for (let batch = 0; batch < JOBS / 1000; batch++) {
      await Promise.all(Array.from({ length: 1000 }, (_, index) => {
        const n = batch * 1000 + index;
        return store.insertJob(sampleJob({ createdAt: base + n * 1000, updatedAt: base + n * 1000, status: STATUSES[n % STATUSES.length]!, role: `agent-${n % 20}` }), [], []);
      }));
    }
    const long = sampleJob({ createdAt: base + JOBS * 1000, updatedAt: base + JOBS * 1000, status: "DONE", role: "long", turns: TURNS });
    const history = turnRecords();
    await store.insertJob({ ...long, historyLength: history.length }, [], history);
    console.log(`bench/ui: store of ${(JOBS + 1).toLocaleString("en-US")} jobs built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const ui = await startUi({ store, actions: {} as UiActions, port: 0 }); // the pages read; no action is taken
    try {
      const list = await store.browseJobs({ limit: 1, before: { createdAt: base + 50_000 * 1000, id: "" } });
      const deep = `${list[0]!.createdAt}_${list[0]!.id}`;
      const figures = {
        "jobs page (first page, counts)": await timeToFirstByte(`${ui.url}/`),
        "jobs page, status FAILED + agent": await timeToFirstByte(`${ui.url}/?status=FAILED&agent=agent-3`),
        "jobs page, 50,000 jobs deep (cursor)": await timeToFirstByte(`${ui.url}/?before=${encodeURIComponent(deep)}`),
        "jobs page, id prefix": await timeToFirstByte(`${ui.url}/?q=${long.id.slice(0, 4)}`),
        [`job page, ${TURNS} turns (${history.length} records)`]: await timeToFirstByte(`${ui.url}/jobs/${long.id}`),
        [`job page, ${TURNS} turns, whole timeline`]: await timeToFirstByte(`${ui.url}/jobs/${long.id}?timeline=all`),
      };
      for (const [name, ms] of Object.entries(figures)) console.log(`  ttfb ${name.padEnd(44)} ${ms.toFixed(1)} ms (median of 15)`);
      global.gc?.();
      const before = process.memoryUsage();
      const streams = await Promise.all(Array.from({ length: 20 }, async (_, index) => {
        const controller = new AbortController();
        const response = await fetch(`${ui.url}/api/events${index % 2 ? `?job=${long.id}` : ""}`, { signal: controller.signal });
        const reader = response.body!.getReader();
        await reader.read(); // the "ready" event
        return { controller, reader };
      }));
      await store.appendEvents([{ jobId: long.id, kind: "bench", data: null }]);
      await Promise.all(streams.map(async ({ reader }) => reader.read()));
      global.gc?.();
      const during = process.memoryUsage();
      const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      console.log(`  memory: rss ${mb(before.rss)} → ${mb(during.rss)} with 20 live pages (heap ${mb(before.heapUsed)} → ${mb(during.heapUsed)}); live streams ${ui.liveStreams}`);
      for (const { controller } of streams) controller.abort();
    } finally {
      await ui.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
