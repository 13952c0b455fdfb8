/**
 * Corrupts one stored field of a PostgreSQL store behind its back (the conformance suite's `damage` hook): raw
 * SQL on a connection of its own writes a value the field cannot hold — text that is not JSON in a JSON
 * column, an unknown status or state. Integer columns are typed (`bigint`) and the variables' blob is any
 * text, so those cannot be damaged: the hook says so by resolving to false.
 */
import pg from "pg";
import type { DamageTarget } from "../../src/store/store.suite.ts";

const JOB_DAMAGE: Record<Extract<DamageTarget, { table: "jobs" }>["field"], [column: string, value: string] | undefined> = {
  params: ["params", "{oops"],
  state: ["state", "[1, 2"],
  status: ["status", "LOST"],
  turns: undefined, // bigint: PostgreSQL refuses text there
  wakeAt: undefined,
};

/** Writes the damage into `schema` of the server at `connectionString`; true when a row was changed. */
export async function damagePostgres(connectionString: string, schema: string, target: DamageTarget): Promise<boolean> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const table = (name: string) => `"${schema}".${name}`;
  const run = async (sql: string, ...values: unknown[]) => (await client.query(sql, values)).rowCount === 1;
  try {
    switch (target.table) {
      case "jobs": {
        const damage = JOB_DAMAGE[target.field];
        return damage === undefined ? false : await run(`UPDATE ${table("jobs")} SET ${damage[0]} = $1 WHERE id = $2`, damage[1], target.jobId);
      }
      case "history":
        return await run(`UPDATE ${table("job_history")} SET data = 'not json' WHERE job_id = $1 AND seq = $2`, target.jobId, target.seq);
      case "variables":
        return false; // a blob is any text: nothing text can hold is unreadable there
      case "journal":
        return await run(`UPDATE ${table("journal")} SET data = '{"cut' WHERE job_id = $1 AND idx = $2`, target.jobId, target.index);
      case "futures":
        return target.field === "value"
          ? await run(`UPDATE ${table("futures")} SET value = '{oops' WHERE key = $1`, target.key)
          : await run(`UPDATE ${table("futures")} SET state = 'lost' WHERE key = $1`, target.key);
      case "events":
        return await run(`UPDATE ${table("events")} SET data = 'not json' WHERE id = $1`, target.id);
    }
  } finally {
    await client.end();
  }
}
