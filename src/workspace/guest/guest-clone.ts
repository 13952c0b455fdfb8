/**
 * @module
 * The workspace's `structuredClone(value, { transfer })`, after the HTML structured clone algorithm: a deep
 * copy that keeps cycles and shared references, primitives and their wrapper objects, `Date`, `RegExp` (its
 * `lastIndex` reset, as HTML does), `ArrayBuffer` (resizable ones stay resizable), typed arrays and `DataView`s
 * (views of one buffer still share its copy), `Map`, `Set`, errors (name, message, `cause`, stack), arrays and
 * ordinary objects (own enumerable string keys, read through getters; a class instance becomes a plain object).
 * Functions, symbols, promises, weak collections, `SharedArrayBuffer`s, detached buffers and host objects
 * (handles) cannot be cloned: a `DOMException` named `DataCloneError` says which. Transferred buffers end up
 * detached, as in the browser, and only once the copy succeeded.
 *
 * {@link createCloneEngine} runs *inside* the sandbox from its source text (the first time a VM calls
 * `structuredClone`, which `guest-realm.ts` installs), so it is self-contained.
 */

/** `structuredClone` without its argument check. */
export type CloneEngine = (value: unknown, options?: { transfer?: Iterable<unknown> } | null) => unknown;

/**
 * Creates the clone algorithm; `hostValueName` names a handle or tombstone (`undefined` for a guest value),
 * `typedArrays` are the realm's typed-array constructors. Runs inside the sandbox, on first use; see the module
 * comment.
 */
export function createCloneEngine(DOMException: any, hostValueName: (value: object) => string | undefined, typedArrays: readonly unknown[]): CloneEngine {
  const defineProperty = Object.defineProperty;
  const hasOwn = (target: object, key: string) => Object.prototype.hasOwnProperty.call(target, key);
  const prototypeOf = Object.getPrototypeOf;
  const ERROR_NAMES = ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];
  const ERRORS: Record<string, unknown> = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const TYPED = typedArrays.filter((constructor) => typeof constructor === "function") as any[];
  const WRAPPERS: any[] = [Boolean, Number, String, BigInt];
  const byteLengthOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!;
  const detachedOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached");
  const resizableOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable");
  const notCloneable = (what: string) => new DOMException(what + " could not be cloned", "DataCloneError");
  const isDetached = (buffer: ArrayBuffer) => {
    if (detachedOf && detachedOf.get) return detachedOf.get.call(buffer) as boolean;
    try {
      new Uint8Array(buffer);
      return false;
    } catch {
      return true;
    }
  };
  const copyBuffer = (buffer: ArrayBuffer) => {
    if (isDetached(buffer)) throw notCloneable("a detached ArrayBuffer");
    const length = byteLengthOf.call(buffer) as number;
    if (resizableOf && resizableOf.get && resizableOf.get.call(buffer)) {
      const copy = new (ArrayBuffer as any)(length, { maxByteLength: (buffer as any).maxByteLength });
      new Uint8Array(copy).set(new Uint8Array(buffer));
      return copy;
    }
    return buffer.slice(0);
  };
  const describe = (value: object) => {
    const tag = Object.prototype.toString.call(value).slice(8, -1);
    return "#<" + (tag === "Object" && prototypeOf(value) && prototypeOf(value).constructor && prototypeOf(value).constructor.name || tag) + ">";
  };

  return (value, options) => {
    const memory = new Map<unknown, unknown>();
    const transfer: ArrayBuffer[] = [];
    if (options !== undefined && options !== null) {
      if (typeof options !== "object") throw new TypeError("structuredClone: the options must be an object");
      if (options.transfer !== undefined) {
        for (const item of options.transfer) {
          if (!(item instanceof ArrayBuffer)) throw notCloneable("a " + (item === null ? "null" : typeof item) + " in the transfer list (only ArrayBuffers can be transferred)");
          if (transfer.indexOf(item) >= 0) throw notCloneable("an ArrayBuffer listed twice in the transfer list");
          if (isDetached(item)) throw notCloneable("a detached ArrayBuffer");
          transfer.push(item);
        }
      }
    }
    // A transferred buffer's contents move to the copy: the copy gets them now, the original is detached last.
    for (const buffer of transfer) memory.set(buffer, copyBuffer(buffer));

    const copyProperties = (source: any, target: any) => {
      for (const key of Object.keys(source)) {
        const copied = clone(source[key]);
        defineProperty(target, key, { value: copied, writable: true, enumerable: true, configurable: true });
      }
    };
    const clone = (input: any): any => {
      const type = typeof input;
      if (type === "symbol") throw notCloneable(String(input));
      if (input === null || (type !== "object" && type !== "function")) return input;
      if (memory.has(input)) return memory.get(input);
      const host = hostValueName(input);
      if (host !== undefined) throw notCloneable(host);
      if (type === "function") throw notCloneable("function " + (input.name || "(anonymous)"));
      let output: any;
      if (Array.isArray(input)) {
        output = new Array(input.length);
        memory.set(input, output);
        copyProperties(input, output);
        return output;
      }
      if (prototypeOf(input) === Object.prototype || prototypeOf(input) === null) {
        output = {};
        memory.set(input, output);
        copyProperties(input, output);
        return output;
      }
      const wrapper = WRAPPERS.find((type) => input instanceof type);
      if (wrapper) output = Object(wrapper.prototype.valueOf.call(input));
      else if (input instanceof Symbol) throw notCloneable("a Symbol object");
      else if (input instanceof Date) output = new Date(input.getTime());
      else if (input instanceof RegExp) output = new RegExp(input.source, input.flags);
      else if (input instanceof ArrayBuffer) output = copyBuffer(input);
      else if (typeof SharedArrayBuffer === "function" && input instanceof SharedArrayBuffer) throw notCloneable("a SharedArrayBuffer");
      else if (ArrayBuffer.isView(input)) {
        const buffer = clone(input.buffer);
        if (input instanceof DataView) output = new DataView(buffer, input.byteOffset, input.byteLength);
        else {
          const Typed = TYPED.find((constructor) => input instanceof constructor);
          if (!Typed) throw notCloneable(describe(input));
          output = new Typed(buffer, input.byteOffset, (input as Uint8Array).length);
        }
      } else if (input instanceof Map) {
        output = new Map();
        memory.set(input, output);
        for (const [key, item] of Array.from(input)) output.set(clone(key), clone(item));
        return output;
      } else if (input instanceof Set) {
        output = new Set();
        memory.set(input, output);
        for (const item of Array.from(input)) output.add(clone(item));
        return output;
      } else if (input instanceof Error) {
        const name = String(input.name);
        const Constructor: any = ERROR_NAMES.indexOf(name) >= 0 ? ERRORS[name] : Error;
        output = new Constructor();
        memory.set(input, output);
        if (hasOwn(input, "message")) defineProperty(output, "message", { value: String(input.message), writable: true, enumerable: false, configurable: true });
        if (typeof input.stack === "string") defineProperty(output, "stack", { value: input.stack, writable: true, enumerable: false, configurable: true });
        if (hasOwn(input, "cause")) defineProperty(output, "cause", { value: clone(input.cause), writable: true, enumerable: false, configurable: true });
        return output;
      } else if (input instanceof Promise || input instanceof WeakMap || input instanceof WeakSet) throw notCloneable(describe(input));
      else {
        // Any other object (a class instance, a user-made proxy) is copied as an ordinary object.
        output = {};
        memory.set(input, output);
        copyProperties(input, output);
        return output;
      }
      memory.set(input, output);
      return output;
    };
    const result = clone(value);
    for (const buffer of transfer) if (typeof (buffer as any).transfer === "function") (buffer as any).transfer();
    return result;
  };
}
