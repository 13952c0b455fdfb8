/**
 * @module
 * A test harness for the incremental collect: one job's cells run twice side by side, in a workspace that
 * collects incrementally and in one that encodes every variable after every cell (`collect: "full"`, the
 * reference), and after every cell the two must have printed the same and hold the same stored rows. Warm
 * (one workspace per side, kept across the cells, as a worker keeps a job's VM) or cold (every cell in a
 * workspace opened from that side's rows). It also counts how many variables each side encoded, so a test can
 * show the incremental side did less.
 */
import assert from "node:assert/strict";
import type { VariableRow } from "../../store/store.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Executor } from "../executor.ts";
import { Workspace, type WorkspaceOptions, type WorkspaceReport } from "../workspace.ts";

/** What both workspaces of a pair are opened with. */
export interface CollectPairOptions {
  executor: () => Executor;
  mode: "warm" | "cold";
  /** Provided globals (the agent's context), decoded afresh for every VM. */
  globals?: () => Record<string, unknown>;
  tools?: readonly Tool[];
  /** Told what went wrong along with the cell, for the failure message (a seed, say). */
  label?: string;
  /**
   * Which printed lines must agree; the others are left out of the comparison (a line whose presence depends
   * on wall-clock timing, which differs between the two runs). @default every line
   */
  compared?: (line: string) => boolean;
}

/** One side of a pair: its rows, its warm workspace and how many variables it encoded. */
class Side {
  rows: VariableRow[] = [];
  encoded = 0;
  #warm: Workspace | undefined;
  readonly #options: CollectPairOptions;
  readonly #collect: "incremental" | "full";

  constructor(options: CollectPairOptions, collect: "incremental" | "full") {
    this.#options = options;
    this.#collect = collect;
  }

  async run(code: string): Promise<{ lines: string[]; report: WorkspaceReport }> {
    const workspace = this.#warm ?? (await this.#open());
    let report: WorkspaceReport;
    try {
      report = await workspace.runCell(code);
    } finally {
      if (this.#options.mode === "cold") workspace.dispose();
    }
    this.encoded += report.encodedVariables ?? 0;
    for (const row of report.put) {
      const index = this.rows.findIndex((existing) => existing.name === row.name);
      if (index >= 0) this.rows[index] = row;
      else this.rows.push(row);
    }
    this.rows = this.rows.filter((row) => !report.deleted.includes(row.name));
    const lines = report.console.map((entry) => `[${entry.stream}] ${entry.text}`);
    if (report.error !== undefined) lines.push(`error: ${report.error}`);
    return { lines, report };
  }

  async #open(): Promise<Workspace> {
    const options: WorkspaceOptions = {
      executor: this.#options.executor(),
      limits: { cellTimeMs: 5_000 },
      job: { id: "job-1", role: "tester" },
      tools: this.#options.tools ?? [],
      globals: this.#options.globals?.() ?? {},
      bindings: new Map(),
      collect: this.#collect,
      // Both sides must see the same time and random numbers.
      clock: () => 1_700_000_000_000,
      random: counterRandom(),
    };
    const workspace = await Workspace.open(options, this.rows);
    if (this.#options.mode === "warm") this.#warm = workspace;
    return workspace;
  }

  close(): void {
    this.#warm?.dispose();
    this.#warm = undefined;
  }
}

/** A job run both ways; {@link CollectPair.run} asserts that both sides agree after each cell. */
export class CollectPair {
  readonly incremental: Side;
  readonly full: Side;
  readonly #label: string;
  readonly #compared: (line: string) => boolean;
  readonly #cells: string[] = [];

  constructor(options: CollectPairOptions) {
    this.incremental = new Side(options, "incremental");
    this.full = new Side(options, "full");
    this.#label = options.label ?? "";
    this.#compared = options.compared ?? (() => true);
  }

  /** Runs `code` on both sides and asserts they printed the same and store the same rows; returns the lines. */
  async run(code: string): Promise<string[]> {
    this.#cells.push(code);
    const reference = await this.full.run(code);
    const incremental = await this.incremental.run(code);
    const where = () => `${this.#label ? `${this.#label}, ` : ""}cell ${this.#cells.length}:\n${code}\n--- cells so far:\n${this.#cells.join("\n---\n")}`;
    assert.deepEqual(incremental.lines.filter(this.#compared), reference.lines.filter(this.#compared), `the incremental and full collects printed differently (${where()})`);
    assert.deepEqual(sorted(this.incremental.rows), sorted(this.full.rows), `the incremental and full collects stored different rows (${where()})`);
    return reference.lines;
  }

  /** The stored text of a variable (both sides agree). */
  blob(name: string): string | undefined {
    return this.full.rows.find((row) => row.name === name)?.blob;
  }

  close(): void {
    this.incremental.close();
    this.full.close();
  }
}

/** A random source that gives every VM the same sequence. */
function counterRandom(): () => number {
  let state = 0;
  return () => (state = (state * 9301 + 49297) % 233280) / 233280;
}

function sorted(rows: readonly VariableRow[]): VariableRow[] {
  return [...rows].sort((a, b) => a.position - b.position);
}
