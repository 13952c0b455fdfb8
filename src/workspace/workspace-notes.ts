/**
 * @module
 * What the default system prompt tells the model about the workspace's globals: the
 * non-standard globals it has, and what a model used to Node or a browser might reach for and not find. The
 * workspace suite checks that every global named here exists in every executor and that the missing ones
 * are missing.
 */

/** Globals the workspace adds to the ECMAScript built-ins (besides the tools and the job's variables). */
export const WORKSPACE_EXTRA_GLOBALS = [
  "console", "print", "exit", "structuredClone", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "atob", "btoa",
  "queueMicrotask", "performance",
] as const;

/** Timers, which live only as long as the cell that set them. */
export const WORKSPACE_TIMERS = ["setTimeout", "setInterval", "clearTimeout", "clearInterval"] as const;

/** Durable waits: the job is suspended while they wait and resumes where it was. */
export const WORKSPACE_WAITS = ["sleep", "until", "waitForMessage", "requestApproval", "getAny", "getAll"] as const;

/** Sub-tasks: a child job's handle found again, and a child ending itself. */
export const WORKSPACE_TASKS = ["findTask", "completeTask", "failTask"] as const;

/** What the workspace does not have: no network, no modules, no process, no files. */
export const WORKSPACE_ABSENT = ["fetch", "require", "process", "import"] as const;

/** The sentence of the default system prompt about the workspace's globals. */
export const WORKSPACE_GLOBALS_NOTE =
  "The workspace has the standard JavaScript built-ins (frozen: do not extend them) plus " +
  "console.log, print, structuredClone, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, queueMicrotask, " +
  "performance.now and setTimeout/setInterval/clearTimeout/clearInterval (timers last only as long as the cell). " +
  "To wait for longer — the job is suspended meanwhile and resumes where it was — await sleep(ms), until(date), " +
  "waitForMessage() (the next message pushed to the job), requestApproval(summary) (a human's approval: resolves to " +
  "their note, throws ApprovalDenied when denied), and getAny([...])/getAll([...]) over them. A sub-task's handle " +
  "(a job another agent runs for this one) has id and state (WAITING, STARTED, COMPLETED or ERROR, read live); await it " +
  "for its result, and findTask(id?) gives it again in a later step; a job that is a sub-task ends itself with " +
  "completeTask(result) or failTask(reason). There is no " +
  "fetch, require, process or import: reach the outside world through the tools.";
