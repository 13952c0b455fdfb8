/**
 * @module
 * Sub-tasks as agent code sees them: a child job's handle reads the child's `state` from the store each time
 * (warm or restored cold, never a copy), `findTask(id?)` hands the parent the handle of one of its children
 * again in any later cell, and `completeTask(result)` / `failTask(reason)` let a child end itself. Every
 * answer is checked against the store: a handle only ever names a child of the job that reads it, whatever
 * id agent code puts in it.
 */
import { valueReply } from "../workspace/guest/guest-protocol.ts";
import { childReply } from "../workspace/wait-messages.ts";
import { handleState, type ChildWaitContext } from "./child-waits.ts";

/** What the sub-task answers need: the job, and its store. */
export type SubTaskContext = Pick<ChildWaitContext, "store" | "jobId">;

/** A refusal agent code reads (`TypeError: …`). */
class SubTaskRefusal extends TypeError {}

/**
 * The guest reply to sub-task crossing `action` (`state`, `find`, `complete`, `fail`) with `id`; child ids it
 * handed out are passed to `watch` (the job records how each ends). Throws a `TypeError` for a refusal.
 */
export async function answerSubTask(context: SubTaskContext, action: string, id: string, watch: (id: string) => void): Promise<string> {
  const { store, jobId } = context;
  switch (action) {
    case "state": {
      const child = id ? await store.getJob(id) : undefined;
      if (!child || child.parentId !== jobId) throw new SubTaskRefusal(`sub-task ${id} is not a child job of this job`);
      return valueReply(handleState(child.status), String);
    }
    case "find": {
      const child = id ? await store.getJob(id) : (await store.listJobs({ parentId: jobId, limit: 1 }))[0];
      if (!child) {
        if (!id) return valueReply(null, String);
        throw new SubTaskRefusal(`findTask: this job has no sub-task ${id}`);
      }
      if (child.parentId !== jobId) throw new SubTaskRefusal(`findTask: this job has no sub-task ${id}`);
      watch(child.id);
      return childReply({ id: child.id, role: child.role, state: handleState(child.status) });
    }
    case "complete":
    case "fail": {
      const self = await store.getJob(jobId);
      const call = action === "complete" ? "completeTask(result)" : "failTask(reason)";
      if (!self?.parentId) throw new SubTaskRefusal(`${call}: this job is not a sub-task (no job started it); end it with exit(status)`);
      return valueReply(undefined, String);
    }
    default:
      throw new SubTaskRefusal(`unknown sub-task operation '${action}'`);
  }
}
