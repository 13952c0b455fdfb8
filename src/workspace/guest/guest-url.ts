/**
 * @module
 * The engine of the workspace's `URL` (the globals are `guest-url-api.ts`): the WHATWG URL standard's basic
 * URL parser — its state machine, with the state overrides the setters use — the serializer, the origin, the
 * setters' rules, and `application/x-www-form-urlencoded` for `URLSearchParams`. Relative references resolve
 * against a base; special schemes (`http`, `https`, `ws`, `wss`, `ftp`, `file`) get their default ports
 * dropped, backslashes read as slashes and dot segments removed; other schemes keep opaque paths (`mailto:`,
 * `data:`). Hosts, percent-encoding and form encoding: `guest-url-hosts.ts`.
 *
 * {@link createUrlEngine} runs *inside* the sandbox from its source text (the first time a VM uses `URL`), so
 * it is self-contained.
 */
import type { UrlHosts } from "./guest-url-hosts.ts";

/** A parsed URL, as the standard defines its record. */
export interface UrlRecord {
  scheme: string;
  username: string;
  password: string;
  host: string | null;
  port: number | null;
  /** Segments, or a string for an opaque path. */
  path: string[] | string;
  query: string | null;
  fragment: string | null;
}

/** What {@link createUrlEngine} makes. */
export interface UrlEngine {
  /** The record of `input` against `base`, or the message of the `TypeError` to throw. */
  parse(input: string, base: string | undefined): { record: UrlRecord } | { error: string };
  /** Attribute `name` of `url`. */
  get(url: UrlRecord, name: string): string;
  /** Sets attribute `name` of `url` as the standard's setter does (a refused change leaves it as it was). */
  set(url: UrlRecord, name: string, value: string): void;
  /** The name/value pairs of form-encoded `query`. */
  parseForm(query: string | null): Array<[string, string]>;
  /** `list` form-encoded (`""` for none). */
  serializeForm(list: ReadonlyArray<readonly [string, string]>): string;
}

/** Creates the URL engine. Runs inside the sandbox, on first use; see the module comment. */
export function createUrlEngine(hosts: UrlHosts): UrlEngine {
  const { parseHost, percentEncode, sets } = hosts;
  const DEFAULT_PORTS: { [scheme: string]: number | null } = { ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443 };
  const isSpecial = (scheme: string) => Object.prototype.hasOwnProperty.call(DEFAULT_PORTS, scheme);
  const defaultPort = (scheme: string) => (isSpecial(scheme) ? DEFAULT_PORTS[scheme]! : null);
  const ALPHA = /^[A-Za-z]$/;
  const isDriveLetter = (text: string, normalized: boolean) => text.length === 2 && ALPHA.test(text[0]!) && (text[1] === ":" || (!normalized && text[1] === "|"));
  const startsWithDriveLetter = (text: string) =>
    text.length >= 2 && isDriveLetter(text.slice(0, 2), false) && (text.length === 2 || "/\\?#".indexOf(text[2]!) >= 0);
  const singleDot = (segment: string) => segment === "." || segment.toLowerCase() === "%2e";
  const doubleDot = (segment: string) => /^(\.|%2e)(\.|%2e)$/i.test(segment);
  const shorten = (url: UrlRecord) => {
    const path = url.path as string[];
    if (url.scheme === "file" && path.length === 1 && isDriveLetter(path[0]!, true)) return;
    path.pop();
  };
  const hasCredentials = (url: UrlRecord) => url.username !== "" || url.password !== "";
  const cannotHaveCredentials = (url: UrlRecord) => url.host === null || url.host === "" || url.scheme === "file";

  // States of the basic URL parser.
  const SCHEME_START = 1, SCHEME = 2, NO_SCHEME = 3, SPECIAL_RELATIVE_OR_AUTHORITY = 4, PATH_OR_AUTHORITY = 5, RELATIVE = 6,
    RELATIVE_SLASH = 7, SPECIAL_AUTHORITY_SLASHES = 8, SPECIAL_AUTHORITY_IGNORE_SLASHES = 9, AUTHORITY = 10, HOST = 11,
    HOSTNAME = 12, PORT = 13, FILE = 14, FILE_SLASH = 15, FILE_HOST = 16, PATH_START = 17, PATH = 18, OPAQUE_PATH = 19,
    QUERY = 20, FRAGMENT = 21;

  /**
   * Parses `input` against `base`; returns the record, or `undefined` for failure. With `url` and `override`,
   * changes `url` in place from the state `override` (a setter) and returns `url` (or `undefined` when the
   * change is refused).
   */
  const parse = (input: string, base: UrlRecord | null, url?: UrlRecord, override?: number): UrlRecord | undefined => {
    if (!url) {
      url = { scheme: "", username: "", password: "", host: null, port: null, path: [], query: null, fragment: null };
      input = input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "");
    }
    input = input.replace(/[\t\n\r]/g, "");
    const record = url;
    let state = override || SCHEME_START;
    let buffer = "";
    let atSignSeen = false;
    let insideBrackets = false;
    let passwordTokenSeen = false;
    const segments = () => record.path as string[];
    for (let pointer = 0; pointer <= input.length; pointer++) {
      const c = input[pointer]; // undefined past the end (EOF)
      const special = isSpecial(record.scheme);
      const slash = c === "/" || (special && c === "\\");
      switch (state) {
        case SCHEME_START:
          if (c !== undefined && ALPHA.test(c)) {
            buffer += c.toLowerCase();
            state = SCHEME;
          } else if (!override) {
            state = NO_SCHEME;
            pointer--;
          } else return undefined;
          break;
        case SCHEME:
          if (c !== undefined && /^[A-Za-z0-9+\-.]$/.test(c)) buffer += c.toLowerCase();
          else if (c === ":") {
            if (override) {
              if (isSpecial(record.scheme) !== isSpecial(buffer)) return undefined;
              if ((hasCredentials(record) || record.port !== null) && buffer === "file") return undefined;
              if (record.scheme === "file" && record.host === "") return undefined;
            }
            record.scheme = buffer;
            if (override) {
              if (record.port === defaultPort(record.scheme)) record.port = null;
              return record;
            }
            buffer = "";
            if (record.scheme === "file") state = FILE;
            else if (isSpecial(record.scheme) && base && base.scheme === record.scheme) state = SPECIAL_RELATIVE_OR_AUTHORITY;
            else if (isSpecial(record.scheme)) state = SPECIAL_AUTHORITY_SLASHES;
            else if (input[pointer + 1] === "/") {
              state = PATH_OR_AUTHORITY;
              pointer++;
            } else {
              record.path = "";
              state = OPAQUE_PATH;
            }
          } else if (!override) {
            buffer = "";
            state = NO_SCHEME;
            pointer = -1;
          } else return undefined;
          break;
        case NO_SCHEME:
          if (!base || (typeof base.path === "string" && c !== "#")) return undefined;
          if (typeof base.path === "string") {
            record.scheme = base.scheme;
            record.path = base.path;
            record.query = base.query;
            record.fragment = "";
            state = FRAGMENT;
          } else {
            state = base.scheme !== "file" ? RELATIVE : FILE;
            pointer--;
          }
          break;
        case SPECIAL_RELATIVE_OR_AUTHORITY:
          if (c === "/" && input[pointer + 1] === "/") {
            state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
            pointer++;
          } else {
            state = RELATIVE;
            pointer--;
          }
          break;
        case PATH_OR_AUTHORITY:
          if (c === "/") state = AUTHORITY;
          else {
            state = PATH;
            pointer--;
          }
          break;
        case RELATIVE:
          record.scheme = base!.scheme;
          if (c === "/" || (isSpecial(record.scheme) && c === "\\")) state = RELATIVE_SLASH;
          else {
            record.username = base!.username;
            record.password = base!.password;
            record.host = base!.host;
            record.port = base!.port;
            record.path = (base!.path as string[]).slice();
            record.query = base!.query;
            if (c === "?") {
              record.query = "";
              state = QUERY;
            } else if (c === "#") {
              record.fragment = "";
              state = FRAGMENT;
            } else if (c !== undefined) {
              record.query = null;
              shorten(record);
              state = PATH;
              pointer--;
            }
          }
          break;
        case RELATIVE_SLASH:
          if (special && (c === "/" || c === "\\")) state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          else if (c === "/") state = AUTHORITY;
          else {
            record.username = base!.username;
            record.password = base!.password;
            record.host = base!.host;
            record.port = base!.port;
            state = PATH;
            pointer--;
          }
          break;
        case SPECIAL_AUTHORITY_SLASHES:
          state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          if (c === "/" && input[pointer + 1] === "/") pointer++;
          else pointer--;
          break;
        case SPECIAL_AUTHORITY_IGNORE_SLASHES:
          if (c !== "/" && c !== "\\") {
            state = AUTHORITY;
            pointer--;
          }
          break;
        case AUTHORITY:
          if (c === "@") {
            if (atSignSeen) buffer = "%40" + buffer;
            atSignSeen = true;
            for (const char of buffer) {
              if (char === ":" && !passwordTokenSeen) {
                passwordTokenSeen = true;
                continue;
              }
              const encoded = percentEncode(char, sets.userinfo!);
              if (passwordTokenSeen) record.password += encoded;
              else record.username += encoded;
            }
            buffer = "";
          } else if (c === undefined || slash || c === "?" || c === "#") {
            if (atSignSeen && buffer === "") return undefined;
            pointer -= buffer.length + 1;
            buffer = "";
            state = HOST;
          } else buffer += c;
          break;
        case HOST:
        case HOSTNAME:
          if (override && record.scheme === "file") {
            pointer--;
            state = FILE_HOST;
          } else if (c === ":" && !insideBrackets) {
            if (buffer === "" || override === HOSTNAME) return undefined;
            const host = parseHost(buffer, special);
            if (host === undefined) return undefined;
            record.host = host;
            buffer = "";
            state = PORT;
          } else if (c === undefined || slash || c === "?" || c === "#") {
            pointer--;
            if (special && buffer === "") return undefined;
            if (override && buffer === "" && (hasCredentials(record) || record.port !== null)) return undefined;
            const host = parseHost(buffer, special);
            if (host === undefined) return undefined;
            record.host = host;
            buffer = "";
            state = PATH_START;
            if (override) return record;
          } else {
            if (c === "[") insideBrackets = true;
            if (c === "]") insideBrackets = false;
            buffer += c;
          }
          break;
        case PORT:
          if (c !== undefined && c >= "0" && c <= "9") buffer += c;
          else if (c === undefined || slash || c === "?" || c === "#" || override) {
            if (buffer !== "") {
              const port = parseInt(buffer, 10);
              if (port > 65535) return undefined;
              record.port = port === defaultPort(record.scheme) ? null : port;
              buffer = "";
            }
            if (override) return record;
            state = PATH_START;
            pointer--;
          } else return undefined;
          break;
        case FILE:
          record.scheme = "file";
          record.host = "";
          if (c === "/" || c === "\\") state = FILE_SLASH;
          else if (base && base.scheme === "file") {
            record.host = base.host;
            record.path = (base.path as string[]).slice();
            record.query = base.query;
            if (c === "?") {
              record.query = "";
              state = QUERY;
            } else if (c === "#") {
              record.fragment = "";
              state = FRAGMENT;
            } else if (c !== undefined) {
              record.query = null;
              if (!startsWithDriveLetter(input.slice(pointer))) shorten(record);
              else record.path = [];
              state = PATH;
              pointer--;
            }
          } else {
            state = PATH;
            pointer--;
          }
          break;
        case FILE_SLASH:
          if (c === "/" || c === "\\") state = FILE_HOST;
          else {
            if (base && base.scheme === "file") {
              record.host = base.host;
              const first = (base.path as string[])[0];
              if (!startsWithDriveLetter(input.slice(pointer)) && first !== undefined && isDriveLetter(first, true)) segments().push(first);
            }
            state = PATH;
            pointer--;
          }
          break;
        case FILE_HOST:
          if (c === undefined || c === "/" || c === "\\" || c === "?" || c === "#") {
            pointer--;
            if (!override && isDriveLetter(buffer, false)) state = PATH;
            else if (buffer === "") {
              record.host = "";
              if (override) return record;
              state = PATH_START;
            } else {
              let host = parseHost(buffer, special);
              if (host === undefined) return undefined;
              if (host === "localhost") host = "";
              record.host = host;
              if (override) return record;
              buffer = "";
              state = PATH_START;
            }
          } else buffer += c;
          break;
        case PATH_START:
          if (special) {
            state = PATH;
            if (c !== "/" && c !== "\\") pointer--;
          } else if (!override && c === "?") {
            record.query = "";
            state = QUERY;
          } else if (!override && c === "#") {
            record.fragment = "";
            state = FRAGMENT;
          } else if (c !== undefined) {
            state = PATH;
            if (c !== "/") pointer--;
          } else if (override && record.host === null) segments().push("");
          break;
        case PATH:
          if (c === undefined || slash || (!override && (c === "?" || c === "#"))) {
            if (doubleDot(buffer)) {
              shorten(record);
              if (!slash) segments().push("");
            } else if (singleDot(buffer) && !slash) segments().push("");
            else if (!singleDot(buffer)) {
              if (record.scheme === "file" && segments().length === 0 && isDriveLetter(buffer, false)) buffer = buffer[0] + ":";
              segments().push(percentEncode(buffer, sets.path!));
            }
            buffer = "";
            if (c === "?") {
              record.query = "";
              state = QUERY;
            } else if (c === "#") {
              record.fragment = "";
              state = FRAGMENT;
            }
          } else buffer += c;
          break;
        case OPAQUE_PATH:
          // The path is encoded when it ends (a surrogate pair must be encoded whole).
          if (c === "?") {
            record.query = "";
            state = QUERY;
          } else if (c === "#") {
            record.fragment = "";
            state = FRAGMENT;
          }
          if (c === "?" || c === "#" || c === undefined) {
            record.path = (record.path as string) + percentEncode(buffer, sets.c0!);
            buffer = "";
          } else buffer += c;
          break;
        case QUERY:
          if ((!override && c === "#") || c === undefined) {
            record.query = (record.query || "") + percentEncode(buffer, special ? sets.specialQuery! : sets.query!);
            buffer = "";
            if (c === "#") {
              record.fragment = "";
              state = FRAGMENT;
            }
          } else buffer += c;
          break;
        case FRAGMENT:
          if (c !== undefined) buffer += c;
          else record.fragment += percentEncode(buffer, sets.fragment!);
          break;
      }
    }
    return record;
  };

  const pathname = (url: UrlRecord) => (typeof url.path === "string" ? url.path : url.path.map((segment) => "/" + segment).join(""));
  const serialize = (url: UrlRecord) => {
    let out = url.scheme + ":";
    if (url.host !== null) {
      out += "//";
      if (hasCredentials(url)) out += url.username + (url.password !== "" ? ":" + url.password : "") + "@";
      out += url.host;
      if (url.port !== null) out += ":" + url.port;
    } else if (typeof url.path !== "string" && url.path.length > 1 && url.path[0] === "") out += "/.";
    out += pathname(url);
    if (url.query !== null) out += "?" + url.query;
    if (url.fragment !== null) out += "#" + url.fragment;
    return out;
  };
  const origin = (url: UrlRecord): string => {
    if (url.scheme === "blob") {
      const inner = typeof url.path === "string" ? parse(url.path, null) : undefined;
      return inner && (inner.scheme === "http" || inner.scheme === "https") ? origin(inner) : "null";
    }
    if (!isSpecial(url.scheme) || url.scheme === "file") return "null";
    return url.scheme + "://" + url.host + (url.port !== null ? ":" + url.port : "");
  };
  // A setter's change, applied to a copy so that a refused one leaves the URL as it was.
  const change = (url: UrlRecord, input: string, override: number) => {
    const copy: UrlRecord = { ...url, path: typeof url.path === "string" ? url.path : url.path.slice() };
    if (!parse(input, null, copy, override)) return false;
    Object.assign(url, copy);
    return true;
  };
  const get = (url: UrlRecord, name: string): string => {
    switch (name) {
      case "href": return serialize(url);
      case "origin": return origin(url);
      case "protocol": return url.scheme + ":";
      case "username": return url.username;
      case "password": return url.password;
      case "host": return url.host === null ? "" : url.port === null ? url.host : url.host + ":" + url.port;
      case "hostname": return url.host === null ? "" : url.host;
      case "port": return url.port === null ? "" : String(url.port);
      case "pathname": return pathname(url);
      case "search": return url.query === null || url.query === "" ? "" : "?" + url.query;
      case "hash": return url.fragment === null || url.fragment === "" ? "" : "#" + url.fragment;
    }
    throw new TypeError("unknown URL attribute " + name);
  };
  const set = (url: UrlRecord, name: string, value: string): void => {
    switch (name) {
      case "href": {
        const parsed = parse(value, null);
        if (!parsed) throw new TypeError("Invalid URL");
        Object.assign(url, parsed);
        return;
      }
      case "protocol":
        change(url, value + ":", SCHEME_START);
        return;
      case "username":
        if (!cannotHaveCredentials(url)) url.username = percentEncode(value, sets.userinfo!);
        return;
      case "password":
        if (!cannotHaveCredentials(url)) url.password = percentEncode(value, sets.userinfo!);
        return;
      case "host":
      case "hostname":
        if (typeof url.path !== "string") change(url, value, name === "host" ? HOST : HOSTNAME);
        return;
      case "port":
        if (cannotHaveCredentials(url)) return;
        if (value === "") url.port = null;
        else change(url, value, PORT);
        return;
      case "pathname": {
        if (typeof url.path === "string") return;
        const before = url.path;
        url.path = [];
        if (!change(url, value, PATH_START)) url.path = before;
        return;
      }
      case "search": {
        if (value === "") {
          url.query = null;
          return;
        }
        const before = url.query;
        url.query = "";
        if (!change(url, value[0] === "?" ? value.slice(1) : value, QUERY)) url.query = before;
        return;
      }
      case "hash": {
        if (value === "") {
          url.fragment = null;
          return;
        }
        const before = url.fragment;
        url.fragment = "";
        if (!change(url, value[0] === "#" ? value.slice(1) : value, FRAGMENT)) url.fragment = before;
        return;
      }
    }
    throw new TypeError("URL." + name + " cannot be set");
  };

  return {
    parse(input, base) {
      let baseRecord: UrlRecord | null = null;
      if (base !== undefined) {
        baseRecord = parse(base, null) ?? null;
        if (!baseRecord) return { error: "Invalid base URL" };
      }
      const record = parse(input, baseRecord);
      return record ? { record } : { error: "Invalid URL" };
    },
    get,
    set,
    parseForm: hosts.parseForm,
    serializeForm: hosts.serializeForm,
  };
}
