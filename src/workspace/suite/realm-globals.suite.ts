/**
 * @module
 * Workspace suite, the globals the guest writes itself: `structuredClone`, `TextEncoder`,
 * `TextDecoder`, `atob`, `btoa`, `URL` and `URLSearchParams`. Where Node has the same global, the cases run
 * one list of inputs through both and expect the same results, so the host's implementation is the reference.
 */
import assert from "node:assert/strict";
import type { SuiteContext } from "./harness.ts";

/** What a call gave: its value, or the name of what it threw (and the message, when `messages`). */
type Outcome = { value: unknown } | { error: string };

/** The same helper, as host code and as cell source: runs `work` and describes the outcome. */
const outcomeSource = "(work) => { try { return { value: work() } } catch (error) { return { error: error.name } } }";
const outcome = (work: () => unknown): Outcome => {
  try {
    return { value: work() };
  } catch (error) {
    return { error: (error as Error).name };
  }
};

const URL_FIELDS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"] as const;

/** URLs (with a base, or `null`) whose parse the guest must agree with Node's on. */
const URL_INPUTS: Array<[string, string | null]> = [
  ["https://user:pa%20ss@EXAMPLE.com:443/a/b/../c/./d?x=1&y=%zz#frag ment", null],
  ["HTTP://example.com:8080", null],
  ["http://example.com:80/", null],
  ["http://example.com:65536/", null],
  ["http://example.com:8a/", null],
  ["http://[::1]:3000/p", null],
  ["http://[2001:db8:0:0:1:0:0:1]/", null],
  ["http://[::ffff:192.168.0.1]/", null],
  ["http://[1:2:3:4:5:6:7:8:9]/", null],
  ["http://0x7f.1/", null],
  ["http://192.168.0.257/", null],
  ["http://1.2.3.4.5/", null],
  ["http://4294967295/", null],
  ["http://münchen.de/straße?q=ü", null],
  ["http://a b/", null],
  ["http://%41.com/", null],
  ["http:\\\\example.com\\a\\b", null],
  ["  https://example.com/  ", null],
  ["https://example.com/a\tb\nc", null],
  ["https://example.com/^{}|`\"<>", null],
  ["https://example.com/?q='\"<>`{}", null],
  ["foo://example.com/?q='", null],
  ["mailto:Joe@Example.COM?subject=hi there", null],
  ["data:text/plain,hello world#frag", null],
  ["javascript:alert(1)", null],
  ["urn:isbn:0451450523", null],
  ["file:///C:/dir/../file.txt", null],
  ["file://localhost/etc/hosts", null],
  ["file:///tmp/a b", null],
  ["non-special://host/a/../b", null],
  ["non-special:/.//p", null],
  ["ws://example.com/chat", null],
  ["blob:https://example.com/uuid", null],
  ["not a url", null],
  ["", null],
  ["//example.com/x", null],
  ["../c/d?e#f", "https://example.com/a/b/index.html"],
  ["/root", "https://example.com/a/b"],
  ["?only=query", "https://example.com/a/b?x=1#y"],
  ["#only-fragment", "https://example.com/a/b?x=1"],
  ["", "https://example.com/a/b?x=1#y"],
  ["//other.org/p", "https://example.com/a"],
  ["http:relative", "http://example.com/a/b"],
  ["sub/page", "file:///home/user/doc.txt"],
  ["x", "mailto:someone@example.com"],
  ["#fragment", "mailto:someone@example.com"],
  ["a", "not a url"],
  ["https://example.com/%2e%2E/x/.%2e/y", null],
];

/** Setter calls, applied in order to `https://user:pw@example.com:8080/a/b?q=1#h`; the href after each. */
const URL_SETTERS: Array<[string, string]> = [
  ["protocol", "http"], ["protocol", "mailto"], ["protocol", "wss:"], ["username", "new user"], ["password", "p@ss"],
  ["host", "other.org:9000"], ["hostname", "third.net"], ["port", "443"], ["port", "x"], ["port", ""], ["port", "99999"],
  ["pathname", "/c d/../e"], ["pathname", "f"], ["search", "?a=1&b= 2"], ["search", ""], ["hash", "#top"], ["hash", ""],
  ["href", "https://reset.example/"], ["host", ""], ["hostname", "[::1]"],
];

/** Form-encoded strings for `URLSearchParams`. */
const FORM_INPUTS = ["a=1&b=2", "?x=%20y+z&empty=&novalue&=nokey&&", "q=%E2%82%AC%zz%4", "caf%C3%A9=cr%C3%A8me", "a=1&a=2&b=3"];

/** Byte sequences for `TextDecoder`. */
const BYTE_INPUTS = [
  [0x68, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9d, 0x84, 0x9e], [0xef, 0xbb, 0xbf, 0x41], [0xff, 0x41], [0xc3], [0xe2, 0x82],
  [0xf0, 0x80, 0x80, 0x41], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0x80, 0xbf],
];

/** Inputs for `atob` and `btoa`. */
const BASE64_INPUTS = ["aGVsbG8=", "aGVsbG8", " aGV sbG8= \n", "aGVsbG8==", "a", "ab==", "ab=c", "a===", "*abc", "YQ", "", "Zm9vYmFy"];
const LATIN1_INPUTS = ["hello", "", "\u00ff\u00fe", "caf\u00e9", "\u20ac", "a\u0000b"];

export function realmGlobalCases({ test, session }: SuiteContext): void {
  test("realm globals: URL parses as Node's URL does", async () => {
    const expected = URL_INPUTS.map(([input, base]) =>
      outcome(() => {
        const url = base === null ? new URL(input) : new URL(input, base);
        return URL_FIELDS.map((field) => url[field]);
      }),
    );
    const output = await session().output(
      `const outcome = ${outcomeSource}\nconst fields = ${JSON.stringify(URL_FIELDS)}\n` +
        `print(JSON.stringify(${JSON.stringify(URL_INPUTS)}.map(([input, base]) => outcome(() => { const url = base === null ? new URL(input) : new URL(input, base); return fields.map((field) => url[field]) }))))`,
    );
    const actual = JSON.parse(output) as Outcome[];
    URL_INPUTS.forEach((input, index) => assert.deepEqual(actual[index], expected[index], `new URL(${input.map((part) => JSON.stringify(part)).join(", ")})`));
  });

  test("realm globals: URL setters change a URL as Node's do", async () => {
    const url = new URL("https://user:pw@example.com:8080/a/b?q=1#h");
    const expected = URL_SETTERS.map(([field, value]) => {
      (url as unknown as Record<string, string>)[field] = value;
      return url.href;
    });
    const output = await session().output(
      `const url = new URL("https://user:pw@example.com:8080/a/b?q=1#h")\n` +
        `print(JSON.stringify(${JSON.stringify(URL_SETTERS)}.map(([field, value]) => { url[field] = value; return url.href })))`,
    );
    const actual = JSON.parse(output) as string[];
    URL_SETTERS.forEach((setter, index) => assert.equal(actual[index], expected[index], `url.${setter[0]} = ${JSON.stringify(setter[1])}`));
  });

  test("realm globals: URL errors, statics and searchParams linked to the URL", async () => {
    const s = session();
    assert.equal((await s.run("new URL('no scheme')")).error, "TypeError: Invalid URL");
    assert.equal((await s.run("new URL('x', 'bad base')")).error, "TypeError: Invalid base URL");
    assert.equal((await s.run("const href = new URL('http://a/')\nhref.href = 'nope'")).error, "TypeError: Invalid URL");
    assert.equal(
      await s.output(
        "const url = new URL('https://shop.example/items?sort=asc&page=2')\nconst params = url.searchParams\n" +
          "params.set('page', '3'); params.append('tag', 'a b&c'); params.delete('sort')\nprint(url.href)\n" +
          "url.search = '?x=1&x=2'\nprint(params.getAll('x').join(), params.size, url.searchParams === params)\n" +
          "params.delete('x')\nprint(url.href, JSON.stringify({ url }), String(url) === url.toString())\n" +
          "print(URL.canParse('https://a'), URL.canParse('nope'), URL.parse('nope'), URL.parse('/p', 'https://a/b').href)",
      ),
      "https://shop.example/items?page=3&tag=a+b%26c\n1,2 2 true\nhttps://shop.example/items {\"url\":\"https://shop.example/items\"} true\ntrue false null https://a/p",
    );
  });

  test("realm globals: URLSearchParams reads and writes form encoding as Node's does", async () => {
    const expected = FORM_INPUTS.map((input) => {
      const params = new URLSearchParams(input);
      return [[...params], params.toString()];
    });
    const output = await session().output(`print(JSON.stringify(${JSON.stringify(FORM_INPUTS)}.map((input) => { const params = new URLSearchParams(input); return [[...params], params.toString()] })))`);
    assert.deepEqual(JSON.parse(output), expected);
    assert.equal(
      await session().output(
        "const params = new URLSearchParams([['b', '2'], ['a', '1'], ['b', '0']])\nparams.sort()\n" +
          "print(params.toString(), new URLSearchParams({ x: 1, y: 'two' }).toString(), new URLSearchParams(params).get('b'), params.has('a', '2'))\n" +
          "const seen = []\nfor (const [name, value] of params) { seen.push(name + value); if (name === 'a') params.append('c', '3') }\nprint(seen.join())\n" +
          "print([...params.keys()].join(), [...params.values()].join(), Object.prototype.toString.call(params.entries()))",
      ),
      "a=1&b=2&b=0 x=1&y=two 2 false\na1,b2,b0,c3\na,b,b,c 1,2,0,3 [object URLSearchParams Iterator]",
    );
    assert.equal((await session().run("new URLSearchParams([['only one']])")).error, "TypeError: URLSearchParams: each pair must be an iterable of exactly two items, [name, value]");
    assert.equal((await session().run("new URLSearchParams().append('a')")).error, "TypeError: URLSearchParams.append: 2 arguments required, but only 1 present");
  });

  test("realm globals: TextEncoder and TextDecoder handle UTF-8 as Node's do", async () => {
    const decoded = BYTE_INPUTS.map((bytes) => [new TextDecoder().decode(new Uint8Array(bytes)), outcome(() => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes)))]);
    const output = await session().output(
      `const outcome = ${outcomeSource}\n` +
        `print(JSON.stringify(${JSON.stringify(BYTE_INPUTS)}.map((bytes) => [new TextDecoder().decode(new Uint8Array(bytes)), outcome(() => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes)))])))`,
    );
    assert.deepEqual(JSON.parse(output), decoded);
    const text = "h\u00e9\u20ac\ud834\udd1e\ud800!";
    const into = new Uint8Array(5);
    const intoResult = new TextEncoder().encodeInto(text, into);
    assert.equal(
      await session().output(
        `const text = ${JSON.stringify(text)}\nconst into = new Uint8Array(5)\nconst result = new TextEncoder().encodeInto(text, into)\n` +
          "print(JSON.stringify([[...new TextEncoder().encode(text)], result, [...into]]))",
      ),
      JSON.stringify([[...new TextEncoder().encode(text)], intoResult, [...into]]),
    );
    assert.equal(
      await session().output(
        "const decoder = new TextDecoder()\nconst parts = [[0xef, 0xbb], [0xbf, 0xe2, 0x82], [0xac, 0x41]].map((bytes) => decoder.decode(new Uint8Array(bytes), { stream: true }))\n" +
          "print(JSON.stringify([...parts, decoder.decode()]), new TextDecoder('UTF8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])).length)\n" +
          "print(new TextDecoder().encoding, new TextDecoder('utf-8', { fatal: true }).fatal, new TextEncoder().encoding, new TextDecoder().decode(new Uint16Array([0x6968]).buffer))",
      ),
      '["","","€A",""] 2\nutf-8 true utf-8 hi',
    );
    assert.equal((await session().run("new TextDecoder('latin1')")).error, "RangeError: The encoding label provided ('latin1') is not supported: TextDecoder in the workspace decodes UTF-8 only");
    assert.equal((await session().run("new TextDecoder().decode('text')")).error, "TypeError: TextDecoder.decode: the input must be an ArrayBuffer, a SharedArrayBuffer or a view of one");
  });

  test("realm globals: atob and btoa are forgiving base64 as Node's are", async () => {
    const expected = [BASE64_INPUTS.map((input) => outcome(() => atob(input))), LATIN1_INPUTS.map((input) => outcome(() => btoa(input)))];
    const output = await session().output(
      `const outcome = ${outcomeSource}\nprint(JSON.stringify([${JSON.stringify(BASE64_INPUTS)}.map((input) => outcome(() => atob(input))), ${JSON.stringify(LATIN1_INPUTS)}.map((input) => outcome(() => btoa(input)))]))`,
    );
    assert.deepEqual(JSON.parse(output), expected);
    assert.equal((await session().run("atob('#')")).error, "InvalidCharacterError: The string to be decoded is not correctly encoded.");
    assert.equal((await session().run("btoa('€')")).error, "InvalidCharacterError: Invalid character: btoa accepts Latin-1 text only (encode other text as UTF-8 bytes first)");
    assert.equal((await session().run("atob()")).error, "TypeError: atob: 1 argument required, but only 0 present");
    assert.equal(await session().output("try { atob('!') } catch (e) { print(e instanceof DOMException, e.code, e.name) }"), "true 5 InvalidCharacterError");
  });

  test("realm globals: structuredClone copies deeply, keeping cycles and shared parts", async () => {
    const output = await session().output(
      "class Point { constructor(x) { this.x = x } get double() { return this.x * 2 } }\n" +
        "const shared = { s: 1 }\nconst buffer = new ArrayBuffer(4)\n" +
        "const source = { n: -0, big: 10n, when: new Date(7), re: /a+/gi, map: new Map([[{ k: 1 }, shared]]), set: new Set([shared]), " +
        "bytes: new Uint8Array(buffer, 1, 2), view: new DataView(buffer), error: new RangeError('bad', { cause: shared }), point: new Point(2), " +
        "boxed: new String('s'), list: [1, , 3], nested: { shared } }\nsource.self = source\nsource.re.lastIndex = 2\n" +
        "const copy = structuredClone(source)\n" +
        "print(copy !== source, copy.self === copy, Object.is(copy.n, -0), copy.big, copy.when.getTime(), copy.when !== source.when)\n" +
        "print(String(copy.re), copy.re.lastIndex, copy.map.get([...copy.map.keys()][0]) === copy.nested.shared, [...copy.set][0] === copy.nested.shared, copy.nested.shared !== shared)\n" +
        "print(copy.bytes.buffer === copy.view.buffer, copy.bytes.byteOffset, copy.bytes.length, copy.bytes.buffer !== buffer)\n" +
        "print(copy.error instanceof RangeError, copy.error.message, copy.error.cause === copy.nested.shared, Object.getPrototypeOf(copy.point) === Object.prototype, copy.point.x, 'double' in copy.point)\n" +
        "print(typeof copy.boxed, String(copy.boxed), 1 in copy.list, copy.list.length)",
    );
    assert.equal(
      output,
      "true true true 10n 7 true\n/a+/gi 0 true true true\ntrue 1 2 true\ntrue bad true true 2 false\nobject s false 3",
    );
  });

  test("realm globals: structuredClone refuses what cannot be cloned with a DataCloneError", async () => {
    const s = session({ globals: { holder: new (class Holder { x = 1 })() } });
    const refusals = [
      ["() => 1", "function (anonymous)"], ["{ f() {} }", "function f"], ["Symbol('s')", "Symbol(s)"], ["Promise.resolve()", "#<Promise>"],
      ["new WeakMap()", "#<WeakMap>"], ["holder", "a host object (Holder)"], ["[holder]", "a host object (Holder)"], ["new SharedArrayBuffer(1)", "a SharedArrayBuffer"],
    ];
    for (const [value, what] of refusals) {
      assert.equal(await s.output(`try { structuredClone(${value}) } catch (e) { print(e.name, e instanceof DOMException, e.message) }`), `DataCloneError true ${what} could not be cloned`, value);
    }
    assert.equal((await s.run("structuredClone()")).error, "TypeError: structuredClone: 1 argument required, but only 0 present");
    assert.equal(
      await s.output("const buffer = new Uint8Array([1, 2]).buffer\nconst moved = structuredClone({ buffer }, { transfer: [buffer] })\nprint(buffer.byteLength, new Uint8Array(moved.buffer).join())"),
      "0 1,2",
    );
  });
}
