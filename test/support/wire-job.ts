/**
 * @module
 * Runs one real job against a loopback server speaking a provider's wire format: a `Statek` on `:memory:`
 * whose model registry reads keys and base URLs pointing at the server, retries that record their delays
 * instead of sleeping, and the job stepped to its end.
 */
import { Agent, Statek, type AgentOptions, type JobView, type ModelOptions, type StatekOptions } from "../../src/index.ts";
import { startLoopbackServer, type RecordedRequest, type Responder } from "./loopback-server.ts";

/** What {@link runWireJob} takes. */
export interface WireJobOptions {
  /** The server's answers, in order. */
  responses: readonly Responder[];
  /** The agent (role defaults to `wired`). */
  agent?: Partial<AgentOptions>;
  /** Model settings over the defaults (5 ms initial delay, recorded sleeps). */
  models?: Partial<ModelOptions>;
  /** `Statek.open` options besides the store, agents and models. */
  statek?: Partial<StatekOptions>;
  /** The user's opening message. */
  message?: string;
  /** Steps to run (default: until the job ends). */
  maxSteps?: number;
  /** Receives the open `Statek` and the job id before the job runs (to hook in, or to take it over). */
  before?(statek: Statek, id: string): void | Promise<void>;
}

/** The finished job, what the server received, and the retry delays asked for. */
export interface WireJobResult {
  view: JobView;
  requests: RecordedRequest[];
  delays: number[];
}

/** Runs a job against a loopback provider; every provider's key and base URL variable points at the server. */
export async function runWireJob(options: WireJobOptions): Promise<WireJobResult> {
  const server = await startLoopbackServer(options.responses);
  const delays: number[] = [];
  const agent = new Agent({ role: "wired", ...options.agent });
  const statek = await Statek.open({
    store: ":memory:",
    agents: [agent],
    ...options.statek,
    models: {
      env: {
        OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`,
        ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: `${server.url}/v1`,
        GOOGLE_GENERATIVE_AI_API_KEY: "google-test", GOOGLE_GENERATIVE_AI_BASE_URL: `${server.url}/v1beta`,
        OPENROUTER_API_KEY: "sk-or-test", OPENROUTER_BASE_URL: `${server.url}/api/v1`,
        OLLAMA_BASE_URL: `${server.url}/v1`,
      },
      initialDelayMs: 5,
      sleep: async (ms) => void delays.push(ms),
      ...options.models,
    },
  });
  try {
    const { id } = await statek.submitJob(agent, options.message === undefined ? {} : { message: options.message });
    await options.before?.(statek, id);
    const view = await statek.runJob(id, options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps });
    return { view, requests: server.requests, delays };
  } finally {
    await statek.close();
    await server.close();
  }
}
