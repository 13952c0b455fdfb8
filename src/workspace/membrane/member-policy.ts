/**
 * @module
 * Which members of a host object agent code may touch (DESIGN.md §6.3): public members the object or its
 * class defines. Private-by-convention members (`_x`, `#x`), the reflective members that lead out of the
 * object (`constructor`, `prototype`, `__proto__`, …) and the built-in members of `Object.prototype` and
 * `Function.prototype` are refused.
 */

const REFLECTIVE = new Set([
  "constructor", "prototype", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
  "__lookupSetter__", "caller", "callee", "arguments",
]);

/** Why agent code may not use member `name` of `target`, or `undefined` when it may. */
export function memberRefusal(target: object, name: string, className: string): string | undefined {
  if (REFLECTIVE.has(name)) return `${className}.${name} is not accessible`;
  if (name.startsWith("_") || name.startsWith("#")) return `${className}.${name} is not accessible (private member)`;
  if (isBuiltinOnly(target, name)) return `${className}.${name} is not accessible (built-in member)`;
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
export function publicKeys(target: object, className: string): string[] {
  return Object.keys(target).filter((key) => memberRefusal(target, key, className) === undefined);
}
