/**
 * @module
 * `STATEK-ACL` documentation rules: which members of a documented class the model is shown.
 * One rule per line — `+name` shows, `-name` hides, a trailing `*` makes a prefix rule (`-update*`, and
 * `+*` for everything), and `: RoleA, RoleB` limits a rule to jobs of those agent roles. The last matching
 * rule wins; when none matches, the default applies. This filters documentation, it is not authorization:
 * the broker's member policy decides what agent code may actually call.
 *
 * ```text
 * +*
 * -internal*
 * -delete: Viewer
 * ```
 */

/** One ACL rule. */
export interface AclRule {
  access: "grant" | "deny";
  /** The member name, or the prefix for a prefix rule (`""` for `*`). */
  name: string;
  isPrefix: boolean;
  /** Agent roles the rule applies to; empty for every role. */
  scope: string[];
}

/** Parsed ACL rules, in order. */
export type Acl = readonly AclRule[];

/** The ACL that shows everything (the default). */
export const GRANT_ALL: Acl = Object.freeze([{ access: "grant", name: "", isPrefix: true, scope: [] }]);

/** The ACL that hides everything. */
export const DENY_ALL: Acl = Object.freeze([{ access: "deny", name: "", isPrefix: true, scope: [] }]);

/** Parses ACL text. Blank lines, a `STATEK-ACL` header and lines not starting with `+`/`-` are ignored. */
export function parseAcl(text: string): Acl {
  const rules: AclRule[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("STATEK-ACL")) continue;
    const sign = line[0];
    if (sign !== "+" && sign !== "-") continue;
    const colon = line.indexOf(":");
    const namePart = (colon < 0 ? line.slice(1) : line.slice(1, colon)).trim();
    const scope = colon < 0 ? [] : line.slice(colon + 1).split(",").map((role) => role.trim()).filter(Boolean);
    const isPrefix = namePart.endsWith("*");
    rules.push({ access: sign === "+" ? "grant" : "deny", name: isPrefix ? namePart.slice(0, -1).trim() : namePart, isPrefix, scope });
  }
  return rules;
}

/**
 * Whether `member` is shown under `acl` to a job of agent `role`. Rules with a scope apply only when `role`
 * is given and listed. The last matching rule wins; with no match, `fallback` decides (hidden by default, as
 * an ACL lists what it shows).
 */
export function hasAccess(acl: Acl, member: string, role?: string, fallback = false): boolean {
  let allowed = fallback;
  for (const rule of acl) {
    if (rule.scope.length && (role === undefined || !rule.scope.includes(role))) continue;
    const matches = rule.isPrefix ? member.startsWith(rule.name) : member === rule.name;
    if (matches) allowed = rule.access === "grant";
  }
  return allowed;
}

/**
 * The default ACL from a job's `STATEK_DEFAULT_ACL` metadata: `GRANT` (show every member, the default),
 * `DENY` (show none unless a class's own ACL says so), or ACL rules.
 */
export function defaultAclFrom(setting: unknown): Acl {
  if (setting === undefined || setting === null || setting === "") return GRANT_ALL;
  const text = String(setting).trim();
  if (text.toUpperCase() === "GRANT") return GRANT_ALL;
  if (text.toUpperCase() === "DENY") return DENY_ALL;
  return parseAcl(text);
}
