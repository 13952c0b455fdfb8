/**
 * @module
 * The Node.js version STATEK needs, checked when the library is imported: on an older Node the first thing to
 * fail would otherwise be a raw `node:sqlite` or syntax error deep inside. Imported first by every entry, so
 * it runs before anything else of STATEK; the `statek` command prints the same message.
 */

/** The oldest Node.js STATEK runs on (`node:sqlite` without a flag, `process.getBuiltinModule`). */
export const MINIMUM_NODE_VERSION = "22.13";

/** The message for a Node.js older than {@link MINIMUM_NODE_VERSION}, or `undefined` when `version` is new enough. */
export function nodeVersionProblem(version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE_VERSION.split(".").map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `statek: needs Node.js ${MINIMUM_NODE_VERSION} or newer (this is v${version})`;
}

const problem = nodeVersionProblem();
if (problem !== undefined) throw new Error(problem);
