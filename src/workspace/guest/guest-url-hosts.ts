/**
 * @module
 * The host half of the workspace's `URL` (WHATWG URL standard, "hosts"): domains (percent-decoded, mapped to
 * lower case and NFKC, non-ASCII labels in Punycode — an approximation of UTS #46 that agrees with it on
 * common names), IPv4 addresses in every form the standard accepts (`0x7f.1` is `127.0.0.1`), IPv6 addresses
 * (compressed on output), and the opaque hosts of non-special schemes; plus the percent-encode sets and
 * `application/x-www-form-urlencoded` (`URLSearchParams`).
 *
 * {@link createUrlHosts} runs *inside* the sandbox from its source text (with the URL engine, on first use), so
 * it is self-contained.
 */
import type { TextEngine } from "./guest-text.ts";

/** What {@link createUrlHosts} gives the URL parser. */
export interface UrlHosts {
  /** The serialized host of `input`, or `undefined` when it is not a valid host. */
  parseHost(input: string, special: boolean): string | undefined;
  /** `input` with every code point of `set` (and every non-ASCII one) UTF-8 percent-encoded. */
  percentEncode(input: string, set: string): string;
  /** Percent-encode sets by name: `c0`, `fragment`, `query`, `specialQuery`, `path`, `userinfo`, `form`. */
  sets: Record<string, string>;
  /** Bytes of `input` with `%XX` sequences decoded. */
  percentDecode(input: string): Uint8Array;
  /** The name/value pairs of `application/x-www-form-urlencoded` `query`. */
  parseForm(query: string | null): Array<[string, string]>;
  /** `list` as `application/x-www-form-urlencoded` text (`""` for none). */
  serializeForm(list: ReadonlyArray<readonly [string, string]>): string;
}

/** Creates the host parser and percent-encoding helpers. Runs inside the sandbox; see the module comment. */
export function createUrlHosts(text: TextEngine): UrlHosts {
  const HEX = "0123456789ABCDEF";
  // A set is a string of the ASCII characters it holds besides the C0 controls, DEL and non-ASCII.
  const fragment = " \"<>\x60"; // \x60: a backtick (the engine sources hold none, see guest-bootstrap.ts)
  const query = " \"#<>";
  const path = query + "?^\x60{}";
  const userinfo = path + "/:;=@[\\]|";
  const sets: Record<string, string> = {
    c0: "",
    fragment,
    query,
    specialQuery: query + "'",
    path,
    userinfo,
    // application/x-www-form-urlencoded: everything but ASCII alphanumerics and *-._ (space is handled apart).
    form: userinfo + "$%&+,!'()~",
  };
  const percentEncode = (input: string, set: string) => {
    let out = "";
    for (let index = 0; index < input.length; index++) {
      const unit = input.charCodeAt(index);
      if (unit < 0x80) {
        if (unit < 0x20 || unit === 0x7f || set.indexOf(input[index]!) >= 0) {
          out += "%" + HEX[unit >> 4] + HEX[unit & 15];
        } else out += input[index];
        continue;
      }
      // A whole code point (a surrogate pair, or a lone surrogate that UTF-8 writes as U+FFFD).
      const pair = unit >= 0xd800 && unit <= 0xdbff && index + 1 < input.length && (input.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
      const bytes = text.encode(pair ? input.slice(index, index + 2) : input[index]!);
      if (pair) index++;
      for (let byte = 0; byte < bytes.length; byte++) out += "%" + HEX[bytes[byte]! >> 4] + HEX[bytes[byte]! & 15];
    }
    return out;
  };
  const hexValue = (code: number) => (code >= 48 && code <= 57 ? code - 48 : code >= 65 && code <= 70 ? code - 55 : code >= 97 && code <= 102 ? code - 87 : -1);
  const percentDecode = (input: string) => {
    const bytes = text.encode(input);
    const out: number[] = [];
    for (let index = 0; index < bytes.length; index++) {
      const byte = bytes[index]!;
      if (byte === 0x25 && index + 2 < bytes.length) {
        const high = hexValue(bytes[index + 1]!);
        const low = hexValue(bytes[index + 2]!);
        if (high >= 0 && low >= 0) {
          out.push(high * 16 + low);
          index += 2;
          continue;
        }
      }
      out.push(byte);
    }
    return new Uint8Array(out);
  };

  // IPv4 numbers: decimal, 0x hexadecimal or 0-prefixed octal; `undefined` when not a number.
  const ipv4Number = (part: string) => {
    if (part === "") return undefined;
    let radix = 10;
    if (part.length >= 2 && (part.startsWith("0x") || part.startsWith("0X"))) {
      radix = 16;
      part = part.slice(2);
    } else if (part.length >= 2 && part[0] === "0") {
      radix = 8;
      part = part.slice(1);
    }
    if (part === "") return 0;
    const valid = radix === 10 ? /^[0-9]+$/ : radix === 16 ? /^[0-9A-Fa-f]+$/ : /^[0-7]+$/;
    return valid.test(part) ? parseInt(part, radix) : undefined;
  };
  const endsInNumber = (input: string) => {
    const parts = input.split(".");
    if (parts[parts.length - 1] === "") {
      if (parts.length === 1) return false;
      parts.pop();
    }
    const last = parts[parts.length - 1]!;
    return /^[0-9]+$/.test(last) || ipv4Number(last) !== undefined;
  };
  const parseIpv4 = (input: string) => {
    const parts = input.split(".");
    if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
    if (parts.length > 4) return undefined;
    const numbers: number[] = [];
    for (const part of parts) {
      const value = ipv4Number(part);
      if (value === undefined) return undefined;
      numbers.push(value);
    }
    for (let index = 0; index < numbers.length - 1; index++) if (numbers[index]! > 255) return undefined;
    const last = numbers[numbers.length - 1]!;
    if (last >= Math.pow(256, 5 - numbers.length)) return undefined;
    let address = last;
    for (let index = 0; index < numbers.length - 1; index++) address += numbers[index]! * Math.pow(256, 3 - index);
    const octets: number[] = [];
    for (let index = 3; index >= 0; index--) octets.push(Math.floor(address / Math.pow(256, index)) % 256);
    return octets.join(".");
  };

  const parseIpv6 = (input: string) => {
    const address = [0, 0, 0, 0, 0, 0, 0, 0];
    let piece = 0;
    let compress: number | null = null;
    let pointer = 0;
    const at = () => input[pointer];
    const isHex = (char: string | undefined) => char !== undefined && /^[0-9A-Fa-f]$/.test(char);
    const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";
    if (at() === ":") {
      if (input[1] !== ":") return undefined;
      pointer += 2;
      compress = ++piece;
    }
    while (at() !== undefined) {
      if (piece === 8) return undefined;
      if (at() === ":") {
        if (compress !== null) return undefined;
        pointer++;
        compress = ++piece;
        continue;
      }
      let value = 0;
      let length = 0;
      while (length < 4 && isHex(at())) {
        value = value * 16 + parseInt(at()!, 16);
        pointer++;
        length++;
      }
      if (at() === ".") {
        if (length === 0) return undefined;
        pointer -= length;
        if (piece > 6) return undefined;
        let numbersSeen = 0;
        while (at() !== undefined) {
          let part: number | null = null;
          if (numbersSeen > 0) {
            if (at() === "." && numbersSeen < 4) pointer++;
            else return undefined;
          }
          if (!isDigit(at())) return undefined;
          while (isDigit(at())) {
            const digit = +at()!;
            if (part === null) part = digit;
            else if (part === 0) return undefined;
            else part = part * 10 + digit;
            if (part > 255) return undefined;
            pointer++;
          }
          address[piece] = address[piece]! * 0x100 + part!;
          numbersSeen++;
          if (numbersSeen === 2 || numbersSeen === 4) piece++;
        }
        if (numbersSeen !== 4) return undefined;
        break;
      } else if (at() === ":") {
        pointer++;
        if (at() === undefined) return undefined;
      } else if (at() !== undefined) return undefined;
      address[piece++] = value;
    }
    if (compress !== null) {
      let swaps = piece - compress;
      piece = 7;
      while (piece !== 0 && swaps > 0) {
        const other = compress + swaps - 1;
        const held = address[piece]!;
        address[piece] = address[other]!;
        address[other] = held;
        piece--;
        swaps--;
      }
    } else if (piece !== 8) return undefined;
    // The first longest run of two or more zero pieces is written `::`.
    let bestStart = -1;
    let bestLength = 1;
    for (let start = 0; start < 8;) {
      if (address[start] !== 0) {
        start++;
        continue;
      }
      let end = start;
      while (end < 8 && address[end] === 0) end++;
      if (end - start > bestLength) {
        bestStart = start;
        bestLength = end - start;
      }
      start = end;
    }
    let out = "";
    for (let index = 0; index < 8; index++) {
      if (index === bestStart) {
        out += index === 0 ? "::" : ":";
        index += bestLength - 1;
        continue;
      }
      out += address[index]!.toString(16) + (index < 7 ? ":" : "");
    }
    return "[" + out + "]";
  };

  // Punycode (RFC 3492) of one label.
  const punycode = (label: string) => {
    const points = Array.from(label, (char) => char.codePointAt(0)!);
    let out = "";
    for (const point of points) if (point < 0x80) out += String.fromCharCode(point);
    const basic = out.length;
    let handled = basic;
    if (basic > 0) out += "-";
    const digit = (value: number) => String.fromCharCode(value < 26 ? 97 + value : 22 + value);
    const adapt = (delta: number, count: number, first: boolean) => {
      delta = first ? Math.floor(delta / 700) : delta >> 1;
      delta += Math.floor(delta / count);
      let k = 0;
      while (delta > 455) {
        delta = Math.floor(delta / 35);
        k += 36;
      }
      return k + Math.floor((36 * delta) / (delta + 38));
    };
    let n = 128;
    let delta = 0;
    let bias = 72;
    while (handled < points.length) {
      let next = 0x7fffffff;
      for (const point of points) if (point >= n && point < next) next = point;
      delta += (next - n) * (handled + 1);
      n = next;
      for (const point of points) {
        if (point < n) delta++;
        if (point !== n) continue;
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
      delta++;
      n++;
    }
    return out;
  };

  const FORBIDDEN_HOST = "\0\t\n\r #/:<>?@[\\]^|";
  const forbiddenIn = (input: string, extra: string) => {
    for (let index = 0; index < input.length; index++) {
      const char = input[index]!;
      const code = input.charCodeAt(index);
      if (FORBIDDEN_HOST.indexOf(char) >= 0 || extra.indexOf(char) >= 0) return true;
      if (extra && (code <= 0x1f || code === 0x7f)) return true;
    }
    return false;
  };
  const domainToAscii = (domain: string) => {
    let mapped = domain;
    if (/[^\x00-\x7f]/.test(mapped)) {
      mapped = mapped.replace(/[\u3002\uff0e\uff61]/g, ".").replace(/[\u00ad\ufe00-\ufe0f]/g, "").normalize("NFKC").toLowerCase();
      mapped = mapped.split(".").map((label) => (/[^\x00-\x7f]/.test(label) ? "xn--" + punycode(label) : label)).join(".");
    } else mapped = mapped.toLowerCase();
    if (mapped === "" || forbiddenIn(mapped, "%")) return undefined;
    return mapped;
  };

  const parseHost = (input: string, special: boolean) => {
    if (input.startsWith("[")) {
      if (!input.endsWith("]")) return undefined;
      return parseIpv6(input.slice(1, -1));
    }
    if (!special) return forbiddenIn(input, "") ? undefined : percentEncode(input, sets.c0!);
    const ascii = domainToAscii(text.decode(percentDecode(input)));
    if (ascii === undefined) return undefined;
    return endsInNumber(ascii) ? parseIpv4(ascii) : ascii;
  };

  const parseForm = (query: string | null): Array<[string, string]> => {
    const list: Array<[string, string]> = [];
    if (query === null) return list;
    for (const sequence of query.split("&")) {
      if (sequence === "") continue;
      const equals = sequence.indexOf("=");
      const name = equals >= 0 ? sequence.slice(0, equals) : sequence;
      const value = equals >= 0 ? sequence.slice(equals + 1) : "";
      list.push([text.decode(percentDecode(name.replace(/\+/g, " "))), text.decode(percentDecode(value.replace(/\+/g, " ")))]);
    }
    return list;
  };
  const formEncode = (value: string) => percentEncode(value, sets.form!).replace(/%20/g, "+");
  const serializeForm = (list: ReadonlyArray<readonly [string, string]>) => list.map((pair) => formEncode(pair[0]) + "=" + formEncode(pair[1])).join("&");

  return { parseHost, percentEncode, sets, percentDecode, parseForm, serializeForm };
}
