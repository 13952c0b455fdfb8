/**
 * Corrupts one stored field of a SQLite store behind its back (the conformance suite's `damage` hook): raw SQL
 * on a `node:sqlite` connection to the same database writes a value the field cannot hold — text that is not
 * JSON in a JSON column, an unknown status or state, text in an integer column, a blob where text belongs.
 */
import type { DatabaseSync } from "node:sqlite";
import type { DamageTarget } from "../../src/store/store.suite.ts";

const JOB_DAMAGE: Record<Extract<DamageTarget, { table: "jobs" }>["field"], [column: string, value: string]> = {
  params: ["params", "{oops"],
  state: ["state", "[1, 2"],
  status: ["status", "LOST"],
  turns: ["turns", "many"],
  wakeAt: ["wake_at", "soon"],
};

/** Writes the damage; true when a row was changed. */
export function damageSqlite(database: DatabaseSync, target: DamageTarget): boolean {
  const run = (sql: string, ...parameters: Array<string | number>) => Number(database.prepare(sql).run(...parameters).changes) === 1;
  switch (target.table) {
    case "jobs": {
      const [column, value] = JOB_DAMAGE[target.field];
      return run(`UPDATE jobs SET ${column} = ? WHERE id = ?`, value, target.jobId);
    }
    case "history":
      return run("UPDATE job_history SET data = 'not json' WHERE job_id = ? AND seq = ?", target.jobId, target.seq);
    case "variables":
      return run("UPDATE job_variables SET blob = X'DEADBEEF' WHERE job_id = ? AND name = ?", target.jobId, target.name);
    case "journal":
      return run("UPDATE journal SET data = '{\"cut' WHERE job_id = ? AND idx = ?", target.jobId, target.index);
    case "futures":
      return target.field === "value"
        ? run("UPDATE futures SET value = '{oops' WHERE key = ?", target.key)
        : run("UPDATE futures SET state = 'lost' WHERE key = ?", target.key);
    case "events":
      return run("UPDATE events SET data = 'not json' WHERE id = ?", target.id);
  }
}
