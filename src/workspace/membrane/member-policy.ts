/**
 * @module
 * Which members of a host object agent code may touch: public members the object or its
 * class defines. Private-by-convention members (`_x`, `#x`), the reflective members that lead out of the
 * object (`constructor`, `prototype`, `__proto__`, …) and the built-in members of `Object.prototype` and
 * `Function.prototype` are refused for every object; an exposed class's allow and deny lists and read-only
 * fields (`statek.expose`) narrow that further. Symbol-keyed members never reach the host at all: the guest
 * proxy answers them itself.
 */
import type { ClassPolicy } from "./exposed-classes.ts";

const REFLECTIVE = new Set([
  "constructor", "prototype", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
  "__lookupSetter__", "caller", "callee", "arguments",
]);

/** Why agent code may not use member `name` of `target`, or `undefined` when it may. */
export function memberRefusal(target: object, name: string, className: string, policy?: ClassPolicy): string | undefined {
  if (REFLECTIVE.has(name)) return `${className}.${name} is not accessible`;
  if (name.startsWith("_") || name.startsWith("#")) return `${className}.${name} is not accessible (private member)`;
  if (isBuiltinOnly(target, name)) return `${className}.${name} is not accessible (built-in member)`;
  if (policy) {
    if (policy.allow && !policy.allow.has(name)) return `${className}.${name} is not accessible (not in the allow list of statek.expose)`;
    if (policy.deny.has(name) || policy.denyPrefixes.some((prefix) => name.startsWith(prefix))) {
      return `${className}.${name} is not accessible (denied by statek.expose)`;
    }
  }
  return undefined;
}

/** Why agent code may not assign member `name`, beyond {@link memberRefusal}, or `undefined`. */
export function writeRefusal(name: string, className: string, policy?: ClassPolicy): string | undefined {
  if (!policy) return undefined;
  if (policy.readOnly === true || policy.readOnly.has(name)) return `cannot set ${className}.${name}: it is read-only`;
  return undefined;
}

/** True when `name` resolves only to a member of `Object.prototype` or `Function.prototype`. */
function isBuiltinOnly(target: object, name: string): boolean {
  for (let object: object | null = target; object; object = Object.getPrototypeOf(object)) {
    if (object === Object.prototype || object === Function.prototype) {
      return Object.prototype.hasOwnProperty.call(object, name);
    }
    if (Object.prototype.hasOwnProperty.call(object, name)) return false;
  }
  return false;
}

/** The public own and inherited (class-defined) enumerable data keys agent code may list. */
export function publicKeys(target: object, className: string, policy?: ClassPolicy): string[] {
  return Object.keys(target).filter((key) => memberRefusal(target, key, className, policy) === undefined);
}

/**
 * A filter for formatting (`llmRepr`'s `visible`) that shows a member of a class instance only when agent code
 * may use it: what the member policy hides stays hidden in print, echoes and tool results too.
 */
export function visibleUnder(policyOf: (value: object) => ClassPolicy | undefined): (object: object, member: string) => boolean {
  return (object, member) => {
    const policy = policyOf(object);
    return policy === undefined || memberRefusal(object, member, "", policy) === undefined;
  };
}
