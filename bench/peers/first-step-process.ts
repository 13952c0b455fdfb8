/**
 * The worker process of bench/postgres-peers' "submit → first step": a STATEK worker (`statek <url>`) or a
 * graphile-worker runner (`graphile <url>`), 10 slots, on the PostgreSQL server `url`. It prints `ready` once it
 * waits for work, then `start <ms>` (the machine's wall clock, sub-millisecond) as each job's first step begins —
 * for STATEK, as the job's model is asked for its first reply; for graphile-worker, as its task runs. Ends on
 * SIGTERM.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamResult } from "@ai-sdk/provider";
import { Agent, ScriptedModel, Statek } from "../../src/index.ts";
import { loadPeer, preciseNow } from "./peer-modules.ts";

const [kind, url] = process.argv.slice(2) as ["statek" | "graphile", string];
const started = (): void => void process.stdout.write(`start ${preciseNow()}\n`);

/** A model that notes when it is asked, then exits the job. */
class NotingModel extends ScriptedModel {
  override async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    started();
    return super.doStream(options);
  }
}

interface GraphileModule {
  run(options: { connectionString: string; concurrency: number; noHandleSignals: boolean; taskList: Record<string, () => Promise<void>> }): Promise<{ stop(): Promise<void> }>;
}

let stop: () => Promise<void>;
if (kind === "statek") {
  const agent = new Agent({ role: "first", model: new NotingModel(["```ts\nexit(1)\n```"]) });
  const statek = await Statek.open({ store: url, agents: [agent] });
  const worker = statek.worker({ maxConcurrency: 10 });
  await worker.start();
  stop = async () => {
    await worker.stop();
    await statek.close();
  };
} else {
  const peer = loadPeer<GraphileModule>("graphile-worker");
  if ("missing" in peer) throw new Error(peer.missing);
  const runner = await peer.module.run({ connectionString: url, concurrency: 10, noHandleSignals: true, taskList: { first: async () => started() } });
  stop = () => runner.stop();
}
process.stdout.write("ready\n");
process.once("SIGTERM", () => void stop().then(() => process.exit(0)));
