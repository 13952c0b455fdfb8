/**
 * Examples and documents through real jobs: folders and in-code arrays, the file formats, the four system tools
 * with paging, lookup by id, exact title and unique part, close titles on a miss, audience filtering by role,
 * and examples shown in the job's chat style.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, scriptedModel, type ChatStyle } from "../src/index.ts";
import { runTestJob } from "../src/testing/index.ts";

const root = mkdtempSync(join(tmpdir(), "statek-knowledge-"));
after(() => rmSync(root, { recursive: true, force: true }));
const ts = (code: string) => "```ts\n" + code + "\n```";

function write(path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

write("examples/02-move.md", [
  "# seq: 2",
  "# name: Move a meeting",
  "# difficulty: M",
  "const meeting = calendar.find(\"planning\")",
  "# ----------",
  "First find a free slot after it.",
  "```ts",
  "const slot = await findEmptySlot(calendar, meeting.endsAt)",
  "print(slot)",
  "```",
  "> 2026-12-04T10:00:00.000Z",
  "```ts",
  "await moveMeeting(meeting, slot)",
  "```",
].join("\n"));
write("examples/01-list.md", "# seq: 1\n# name: List today's meetings\n# ----------\n```ts\nprint(calendar.eventsFor(today))\n```\n> Standup 09:00\n> Planning 11:00\n");
write("examples/extra.md", "# name: Cancel a meeting\n```ts\ncancel(meeting)\n```\n");

write("kb/billing/refunds.md", "---\ntopic: Billing\ntitle: Refund policy\norder: 2\n---\nRefunds are paid within 14 days.\nAsk for the order number first.");
write("kb/billing/invoices.md", "---\ntopic: Billing\ntitle: Invoice corrections\norder: 1\naudience: billing_agent\n---\nOnly billing may correct invoices.");
write("kb/billing/referrals.md", "---\ntopic: Billing\ntitle: Referral program\norder: 3\n---\nA referral earns 10 EUR.");
write("kb/shipping/delays.md", "# Shipping delays\nParcels to islands take two more days.");

const consoleOf = (view: { history: Array<{ kind: string; data: any }> }) => view.history.filter((record) => record.kind === "console").map((record) => record.data.text);

describe("examples, through real jobs", () => {
  it("a folder of example files: listed in seq order (none last), paged, shown by id or name", async () => {
    const model = scriptedModel([ts("listExamples()\nlistExamples(1, 1)\nshowExample(1)\nshowExample('cancel')\nshowExample(9)\nexit(0)")]);
    const agent = new Agent({ role: "planner", model, examples: join(root, "examples") });
    assert.deepEqual(agent.examples.map((example) => [example.id, example.name, example.seq, example.difficulty]), [
      [0, "List today's meetings", 1, undefined], [1, "Move a meeting", 2, "M"], [2, "Cancel a meeting", undefined, undefined],
    ]);
    const view = await runTestJob(agent);
    assert.equal(view.status, "DONE", view.error ?? "");
    const [list, paged, shown, byName, missing] = consoleOf(view);
    assert.equal(list, "Examples (id: name) (0–2 of 3)\n0: List today's meetings\n1: Move a meeting [M]\n2: Cancel a meeting");
    assert.equal(paged, "Examples (id: name) (1–1 of 3)\n1: Move a meeting [M]\n(more: listExamples(2, 1))");
    assert.equal(shown, [
      "// --- EXAMPLE 1: Move a meeting [M] ---",
      "// Given (set up before the example):",
      "```ts\nconst meeting = calendar.find(\"planning\")\n```",
      "First find a free slot after it.",
      "```ts\nconst slot = await findEmptySlot(calendar, meeting.endsAt)\nprint(slot)\n```",
      "2026-12-04T10:00:00.000Z",
      "```ts\nawait moveMeeting(meeting, slot)\n```",
      "// --- END OF EXAMPLE ---",
    ].join("\n"));
    assert.match(byName!, /^\/\/ --- EXAMPLE 2: Cancel a meeting ---/);
    assert.equal(missing, "Example not found: no example #9 (ids are 0 to 2).");
    assert.match(model.requests[0]!.system, /listExamples\(start\?, limit\?\) lists them, showExample\(id\) prints one/);
  });

  it("an example is shown in the job's chat style: CONSOLE prefixes output with '> ', MD_DIALOG boxes it", async () => {
    const examples = [{ name: "Count", steps: [{ kind: "text" as const, text: "Count them." }, { kind: "code" as const, text: "print(items.length)" }, { kind: "console" as const, text: "3" }] }];
    const shownIn = async (chatStyle: ChatStyle, exit: string) => {
      const view = await runTestJob(new Agent({ role: "counter", chatStyle, examples, model: scriptedModel([exit]) }));
      return consoleOf(view)[0];
    };
    assert.equal(await shownIn("CONSOLE", "showExample(0)\nexit(0)"), "// --- EXAMPLE 0: Count ---\n// Count them.\nprint(items.length)\n> 3\n// --- END OF EXAMPLE ---");
    assert.equal(await shownIn("MD_DIALOG", ts("showExample(0)\nexit(0)")), "// --- EXAMPLE 0: Count ---\nCount them.\n```ts\nprint(items.length)\n```\n<CONSOLE>\n3\n</CONSOLE>\n// --- END OF EXAMPLE ---");
  });

  it("without an id, showExample shows the one defaultExampleId names", async () => {
    const view = await runTestJob(new Agent({
      role: "defaulted", examples: [{ name: "A", steps: [] }, { name: "B", steps: [{ kind: "code", text: "b()" }] }],
      model: scriptedModel([ts("showExample()\nexit(0)")]),
    }), { vars: { defaultExampleId: 1 } });
    assert.match(consoleOf(view)[0]!, /^\/\/ --- EXAMPLE 1: B ---/);
  });

  it("a bad example file names the file and line", () => {
    write("bad-examples/x.md", "# difficulty: extreme\n```ts\nx()\n```");
    assert.throws(() => new Agent({ role: "x", examples: join(root, "bad-examples") }), {
      name: "InvalidPromptFileError", message: `${join(root, "bad-examples/x.md")}:1: difficulty must be L, M or H (or low, medium, high), got 'extreme'`,
    });
    assert.throws(() => new Agent({ role: "x", examples: join(root, "nowhere") }), /cannot read the folder/);
  });
});

describe("documents, through real jobs", () => {
  const kb = join(root, "kb");

  it("topics and their documents by id, by exact title, by a part only one title has; a miss lists close titles", async () => {
    const model = scriptedModel([ts([
      "listDocuments()", "listDocuments('bill')", "showDocument(2)", "showDocument('refund policy')", "showDocument('Referral')",
      "showDocument('Refund polcy')", "showDocument('re')", "showDocument('Invoice corrections')", "exit(0)",
    ].join("\n"))]);
    const view = await runTestJob(new Agent({ role: "support_agent", model, documents: kb }));
    assert.equal(view.status, "DONE", view.error ?? "");
    const [topics, billing, byId, byTitle, byPart, fuzzy, ambiguous, hidden] = consoleOf(view);
    assert.equal(topics, "Topics (id: topic) (0–1 of 2)\n0: Billing (2 documents)\n1: shipping (1 documents)");
    assert.equal(billing, "Documents in Billing (id: title) (0–1 of 2)\n0: Refund policy\n1: Referral program");
    assert.equal(byId, "# Shipping delays\nParcels to islands take two more days.", "a title from the first heading is not printed twice");
    assert.equal(byTitle, "# Refund policy\nRefunds are paid within 14 days.\nAsk for the order number first.");
    assert.equal(byPart, "# Referral program\nA referral earns 10 EUR.");
    assert.equal(fuzzy, "# Refund policy\nRefunds are paid within 14 days.\nAsk for the order number first.", "a title 90% alike is taken");
    assert.equal(ambiguous, "Document not found: 're' matches several: Refund policy (#0), Referral program (#1).");
    assert.match(hidden!, /^Document not found: no document named 'Invoice corrections'/, "a document for another audience is not there");
  });

  it("a document's audience sees it; long documents page by lines", async () => {
    const body = Array.from({ length: 5 }, (_, index) => `line ${index}`).join("\n");
    const model = scriptedModel([ts("listDocuments(0)\nshowDocument('Invoice corrections')\nshowDocument('Long', 1, 2)\nexit(0)")]);
    const view = await runTestJob(new Agent({
      role: "billing_agent", model,
      documents: [
        { topic: "Billing", title: "Invoice corrections", audience: ["billing_agent"], body: "Only billing may correct invoices." },
        { topic: "Billing", title: "Long", body },
      ],
    }));
    const [listed, invoice, page] = consoleOf(view);
    assert.equal(listed, "Documents in Billing (id: title) (0–1 of 2)\n0: Invoice corrections\n1: Long");
    assert.equal(invoice, "# Invoice corrections\nOnly billing may correct invoices.");
    assert.equal(page, "# Long (lines 1–2 of 5)\nline 1\nline 2\n(more: showDocument(1, 3))");
  });

  it("a close title is suggested on a miss", async () => {
    const model = scriptedModel([ts("showDocument('Shiping delay policy')\nexit(0)")]);
    const view = await runTestJob(new Agent({ role: "anyone", model, documents: kb }));
    assert.equal(consoleOf(view)[0], "Document not found: no document named 'Shiping delay policy'; close: Shipping delays (#2), Refund policy (#0).");
  });
});
