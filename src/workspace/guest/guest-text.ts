/**
 * @module
 * Text encoding inside the workspace: `TextEncoder`, `TextDecoder` (UTF-8, as the WHATWG Encoding standard
 * decodes it: each maximal invalid subpart becomes one U+FFFD, or a `TypeError` with `fatal: true`; a leading
 * byte order mark is dropped unless `ignoreBOM`; `{ stream: true }` keeps a sequence split between chunks),
 * `btoa` and `atob` (forgiving base64; characters outside Latin-1, or text that is not base64, throw a
 * `DOMException` named `InvalidCharacterError`). Neither engine has them inside a workspace.
 *
 * Two functions run *inside* the sandbox from their source text, so each is self-contained:
 * {@link installTextGlobals} (the globals, thin, installed in every VM) and {@link createTextEngine} (the
 * encoders, compiled the first time a VM needs them; `URL` uses its UTF-8 helpers too).
 */

/** A `TextDecoder`'s state between calls. */
export interface DecoderState {
  fatal: boolean;
  ignoreBOM: boolean;
  /** Bytes of a sequence (or a byte order mark) not finished by the last streaming call. */
  pending: number[];
  /** The stream's first bytes are in (its byte order mark, if any, was handled). */
  started: boolean;
}

/** What {@link createTextEngine} makes. */
export interface TextEngine {
  /** UTF-8 bytes of `text` (lone surrogates become U+FFFD). */
  encode(text: string): Uint8Array;
  /** `TextEncoder.encodeInto`: whole characters of `text` that fit into `destination`. */
  encodeInto(text: string, destination: Uint8Array): { read: number; written: number };
  /** Text of UTF-8 `bytes`, invalid sequences replaced by U+FFFD. */
  decode(bytes: ArrayLike<number>): string;
  /** `TextDecoder.decode` of `input` (a buffer source or `undefined`) for a decoder in `state`. */
  decodeStream(state: DecoderState, input: unknown, stream: boolean): string;
  btoa(data: string): string;
  atob(data: string): string;
}

/** Creates the encoders. Runs inside the sandbox, on first use; see the module comment. */
export function createTextEngine(DOMException: any): TextEngine {
  const fromCharCode = String.fromCharCode;
  const REPLACEMENT = 0xfffd;

  const byteLength = (text: string) => {
    let length = 0;
    for (let index = 0; index < text.length; index++) {
      const unit = text.charCodeAt(index);
      if (unit < 0x80) length += 1;
      else if (unit < 0x800) length += 2;
      else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
        length += 4;
        index++;
      } else length += 3;
    }
    return length;
  };
  // Writes `text` from code unit `start` into `out` from `at`, whole characters only, up to `out.length`.
  const write = (text: string, out: Uint8Array, start: number, at: number) => {
    let index = start;
    const limit = out.length;
    while (index < text.length) {
      let point = text.charCodeAt(index);
      let units = 1;
      if (point >= 0xd800 && point <= 0xdfff) {
        const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
        if (point <= 0xdbff && (next & 0xfc00) === 0xdc00) {
          point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
          units = 2;
        } else point = REPLACEMENT;
      }
      const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
      if (at + size > limit) break;
      if (size === 1) out[at++] = point;
      else if (size === 2) {
        out[at++] = 0xc0 | (point >> 6);
        out[at++] = 0x80 | (point & 0x3f);
      } else if (size === 3) {
        out[at++] = 0xe0 | (point >> 12);
        out[at++] = 0x80 | ((point >> 6) & 0x3f);
        out[at++] = 0x80 | (point & 0x3f);
      } else {
        out[at++] = 0xf0 | (point >> 18);
        out[at++] = 0x80 | ((point >> 12) & 0x3f);
        out[at++] = 0x80 | ((point >> 6) & 0x3f);
        out[at++] = 0x80 | (point & 0x3f);
      }
      index += units;
    }
    return { read: index - start, written: at };
  };
  const encode = (text: string) => {
    const out = new Uint8Array(byteLength(text));
    write(text, out, 0, 0);
    return out;
  };

  /**
   * Decodes `bytes[start..end)`. Returns the text and where an unfinished sequence at the end starts (`end` when
   * there is none), or `undefined` when `fatal` and the bytes are not UTF-8.
   */
  const decodeRange = (bytes: ArrayLike<number>, start: number, end: number, fatal: boolean, flush: boolean) => {
    let text = "";
    let units: number[] = [];
    const emit = (point: number) => {
      if (point > 0xffff) {
        point -= 0x10000;
        units.push(0xd800 + (point >> 10), 0xdc00 + (point & 0x3ff));
      } else units.push(point);
      if (units.length >= 4096) {
        text += fromCharCode.apply(null, units);
        units = [];
      }
    };
    let point = 0;
    let needed = 0;
    let seen = 0;
    let lower = 0x80;
    let upper = 0xbf;
    let sequenceStart = start;
    for (let index = start; index < end; index++) {
      const byte = bytes[index]!;
      if (needed === 0) {
        sequenceStart = index;
        if (byte <= 0x7f) {
          units.push(byte);
          if (units.length >= 4096) {
            text += fromCharCode.apply(null, units);
            units = [];
          }
          continue;
        }
        if (byte >= 0xc2 && byte <= 0xdf) {
          needed = 1;
          point = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0;
          if (byte === 0xed) upper = 0x9f;
          needed = 2;
          point = byte & 0xf;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90;
          if (byte === 0xf4) upper = 0x8f;
          needed = 3;
          point = byte & 0x7;
        } else {
          if (fatal) return undefined;
          emit(REPLACEMENT);
        }
        continue;
      }
      if (byte < lower || byte > upper) {
        // The sequence so far is one maximal invalid subpart; this byte starts afresh.
        point = needed = seen = 0;
        lower = 0x80;
        upper = 0xbf;
        if (fatal) return undefined;
        emit(REPLACEMENT);
        index--;
        continue;
      }
      lower = 0x80;
      upper = 0xbf;
      point = (point << 6) | (byte & 0x3f);
      if (++seen === needed) {
        emit(point);
        point = needed = seen = 0;
      }
    }
    let rest = end;
    if (needed !== 0) {
      if (!flush) rest = sequenceStart;
      else if (fatal) return undefined;
      else emit(REPLACEMENT);
    }
    if (units.length) text += fromCharCode.apply(null, units);
    return { text, rest };
  };
  const decode = (bytes: ArrayLike<number>) => decodeRange(bytes, 0, bytes.length, false, true)!.text;

  // Bytes of an ArrayBuffer, a view of one, or a SharedArrayBuffer.
  const bytesOf = (input: unknown, what: string): Uint8Array => {
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && input instanceof SharedArrayBuffer)) return new Uint8Array(input);
    throw new TypeError(what + ": the input must be an ArrayBuffer, a SharedArrayBuffer or a view of one");
  };

  const encodeInto = (text: string, destination: Uint8Array) => {
    const result = write(text, destination, 0, 0);
    return { read: result.read, written: result.written };
  };
  const decodeStream = (state: DecoderState, input: unknown, stream: boolean) => {
    let bytes: ArrayLike<number> = input === undefined ? new Uint8Array(0) : bytesOf(input, "TextDecoder.decode");
    if (state.pending.length) {
      const joined = new Uint8Array(state.pending.length + bytes.length);
      joined.set(state.pending, 0);
      joined.set(bytes as Uint8Array, state.pending.length);
      bytes = joined;
      state.pending = [];
    }
    let start = 0;
    if (!state.started) {
      // The byte order mark can only be told apart once three bytes are in (or the stream ends).
      if (stream && bytes.length < 3 && [0xef, 0xbb, 0xbf].slice(0, bytes.length).every((byte, index) => bytes[index] === byte)) {
        state.pending = Array.prototype.slice.call(bytes);
        return "";
      }
      state.started = true;
      if (!state.ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    }
    const result = decodeRange(bytes, start, bytes.length, state.fatal, !stream);
    if (!stream) state.started = false;
    if (result === undefined) {
      state.pending = [];
      throw new TypeError("The encoded data was not valid for encoding utf-8");
    }
    if (stream) state.pending = Array.prototype.slice.call(bytes, result.rest);
    return result.text;
  };

  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  // Sextet by character code; 255 marks a character base64 does not use.
  const SEXTETS = new Uint8Array(128).fill(255);
  for (let index = 0; index < 64; index++) SEXTETS[ALPHABET.charCodeAt(index)] = index;
  const invalidCharacter = (message: string) => new DOMException(message, "InvalidCharacterError");
  const fromBytes = (codes: number[]) => {
    let text = "";
    for (let index = 0; index < codes.length; index += 4096) text += fromCharCode.apply(null, codes.slice(index, index + 4096));
    return text;
  };

  const btoa = (text: string) => {
    let out = "";
    for (let index = 0; index < text.length; index += 3) {
      const a = text.charCodeAt(index);
      const b = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      const c = index + 2 < text.length ? text.charCodeAt(index + 2) : 0;
      if (a > 0xff || b > 0xff || c > 0xff) throw invalidCharacter("Invalid character: btoa accepts Latin-1 text only (encode other text as UTF-8 bytes first)");
      out += ALPHABET[a >> 2]! + ALPHABET[((a & 3) << 4) | (b >> 4)]!;
      out += index + 1 < text.length ? ALPHABET[((b & 15) << 2) | (c >> 6)]! : "=";
      out += index + 2 < text.length ? ALPHABET[c & 63]! : "=";
    }
    return out;
  };

  const atob = (data: string) => {
    let text = data.replace(/[\t\n\f\r ]+/g, "");
    if (text.length % 4 === 0) text = text.replace(/==?$/, "");
    const notEncoded = () => invalidCharacter("The string to be decoded is not correctly encoded.");
    if (text.length % 4 === 1) throw notEncoded();
    const codes: number[] = [];
    let buffer = 0;
    let bits = 0;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      const value = code < 128 ? SEXTETS[code]! : 255;
      if (value === 255) throw notEncoded();
      buffer = (buffer << 6) | value;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        codes.push((buffer >> bits) & 0xff);
      }
    }
    return fromBytes(codes);
  };

  return { encode, encodeInto, decode, decodeStream, btoa, atob };
}

/** Installs the text globals over a lazily made engine. Runs inside the sandbox; see the module comment. */
export function installTextGlobals(G: any, engine: () => TextEngine): void {
  const defineProperty = Object.defineProperty;
  const global = (name: string, value: unknown) => defineProperty(G, name, { value, writable: true, enumerable: false, configurable: true });
  const tag = (cls: Function, name: string) => defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
  const needArguments = (given: number, needed: number, what: string) => {
    if (given < needed) throw new TypeError(what + ": " + needed + " argument" + (needed > 1 ? "s" : "") + " required, but only " + given + " present");
  };
  const UTF8_LABELS = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];

  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(input: unknown = "") {
      return engine().encode(String(input));
    }
    encodeInto(source: unknown, destination: Uint8Array) {
      needArguments(arguments.length, 2, "TextEncoder.encodeInto");
      if (!(destination instanceof Uint8Array)) throw new TypeError("TextEncoder.encodeInto: the destination must be a Uint8Array");
      return engine().encodeInto(String(source), destination);
    }
  }
  tag(TextEncoder, "TextEncoder");

  class TextDecoder {
    #state: DecoderState;
    constructor(label: unknown = "utf-8", options: { fatal?: unknown; ignoreBOM?: unknown } | null | undefined = {}) {
      const name = String(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
      if (UTF8_LABELS.indexOf(name) < 0) {
        throw new RangeError("The encoding label provided ('" + String(label) + "') is not supported: TextDecoder in the workspace decodes UTF-8 only");
      }
      const given = options === null || options === undefined ? {} : options;
      this.#state = { fatal: Boolean(given.fatal), ignoreBOM: Boolean(given.ignoreBOM), pending: [], started: false };
    }
    get encoding() {
      return "utf-8";
    }
    get fatal() {
      return this.#state.fatal;
    }
    get ignoreBOM() {
      return this.#state.ignoreBOM;
    }
    decode(input?: unknown, options?: { stream?: unknown } | null) {
      const stream = options !== null && options !== undefined && Boolean(options.stream);
      return engine().decodeStream(this.#state, input, stream);
    }
  }
  tag(TextDecoder, "TextDecoder");

  global("TextEncoder", TextEncoder);
  global("TextDecoder", TextDecoder);
  global("btoa", function btoa(data: unknown) {
    needArguments(arguments.length, 1, "btoa");
    return engine().btoa(String(data));
  });
  global("atob", function atob(data: unknown) {
    needArguments(arguments.length, 1, "atob");
    return engine().atob(String(data));
  });
}
