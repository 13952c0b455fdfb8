import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "@ai-sdk/provider";
import { ModelCallError } from "../index.ts";
import { callWithRetries } from "./call-with-retries.ts";
import { retryAfterMs } from "./retry-policy.ts";

const apiError = (statusCode: number, headers: Record<string, string> = {}) =>
  new APICallError({ message: `status ${statusCode}`, url: "http://127.0.0.1/v1", requestBodyValues: {}, statusCode, responseHeaders: headers });

function failing(errors: unknown[], result = "ok") {
  let calls = 0;
  return {
    get calls() { return calls; },
    attempt: async () => {
      const error = errors[calls++];
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the retry policy is tested with whatever a caller throws
      if (error) throw error;
      return result;
    },
  };
}

describe("model call retries", () => {
  it("retries 429 and 5xx with doubling delays, honouring Retry-After and retry-after-ms", async () => {
    const delays: number[] = [];
    const sleep = async (ms: number) => void delays.push(ms);
    const call = failing([apiError(500), apiError(429, { "retry-after": "3" }), apiError(503, { "retry-after-ms": "250" })]);
    assert.equal(await callWithRetries(call.attempt, { maxRetries: 3, initialDelayMs: 100, sleep }), "ok");
    assert.equal(call.calls, 4);
    assert.deepEqual(delays, [100, 3000, 250]);
  });

  it("gives up after maxRetries, saying how often it tried and what the last attempt got", async () => {
    const call = failing([apiError(500), apiError(502), apiError(503)]);
    await assert.rejects(callWithRetries(call.attempt, { maxRetries: 2, sleep: async () => {} }), (error: unknown) => {
      assert.ok(error instanceof ModelCallError);
      assert.equal(error.message, "model call failed after 3 attempts: AI_APICallError: status 503");
      assert.equal(error.attempts, 3);
      return true;
    });
  });

  it("does not retry an error that is not retryable, nor retry earlier than a too-long Retry-After allows", async () => {
    const client = failing([apiError(400)]);
    await assert.rejects(callWithRetries(client.attempt, { sleep: async () => {} }), { message: "model call failed: AI_APICallError: status 400" });
    assert.equal(client.calls, 1);
    const patient = failing([apiError(429, { "retry-after": "600" })]);
    await assert.rejects(callWithRetries(patient.attempt, { sleep: async () => {} }), {
      message: "model call failed: AI_APICallError: status 429 (the provider asked to retry after 600 s, longer than maxDelayMs 60000)",
    });
  });

  it("abandons an attempt at the timeout and retries it", async () => {
    let calls = 0;
    const attempt = (signal: AbortSignal) => new Promise<string>((resolve, reject) => {
      if (calls++ > 0) return resolve("second");
      signal.addEventListener("abort", () => reject(signal.reason));
    });
    assert.equal(await callWithRetries(attempt, { timeoutMs: 20, sleep: async () => {} }), "second");
    const never = () => new Promise<string>((_resolve, reject) => setTimeout(() => reject(new Error("late")), 1000).unref());
    await assert.rejects(callWithRetries((signal) => Promise.race([never(), new Promise<string>((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason)))]), { timeoutMs: 10, maxRetries: 1, sleep: async () => {} }), {
      message: "model call failed after 2 attempts: TimeoutError: the model did not answer within 10 ms",
    });
  });

  it("numbers the attempts and reports each failed one: its error, whether it was retried, whether it timed out", async () => {
    const failures: Array<[number, string, boolean, boolean]> = [];
    const numbers: number[] = [];
    const errors = [apiError(500), undefined, apiError(400)];
    const attempt = (signal: AbortSignal, attemptNumber: number) => {
      numbers.push(attemptNumber);
      const error = errors[attemptNumber - 1];
      if (error) return Promise.reject(error);
      return new Promise<string>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    };
    await assert.rejects(callWithRetries(attempt, { timeoutMs: 20, sleep: async () => {} }, undefined, {
      onAttemptFailed: ({ attempt, error, retried, timedOut }) => void failures.push([attempt, error, retried, timedOut]),
    }), { message: "model call failed after 3 attempts: AI_APICallError: status 400" });
    assert.deepEqual(numbers, [1, 2, 3]);
    assert.deepEqual(failures, [
      [1, "AI_APICallError: status 500", true, false],
      [2, "TimeoutError: the model did not answer within 20 ms", true, true],
      [3, "AI_APICallError: status 400", false, false],
    ]);
  });

  it("stops at once when the caller cancels, with the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("shutting down");
    const attempt = (signal: AbortSignal) => new Promise<string>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    const pending = callWithRetries(attempt, {}, controller.signal);
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
  });

  it("reads Retry-After as seconds, as an HTTP date, and retry-after-ms as milliseconds", () => {
    assert.equal(retryAfterMs({ "Retry-After": "2" }), 2000);
    assert.equal(retryAfterMs({ "retry-after": "Wed, 21 Oct 2015 07:28:05 GMT" }, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")), 5000);
    assert.equal(retryAfterMs({ "retry-after-ms": "150", "retry-after": "9" }), 150);
    assert.equal(retryAfterMs({ "retry-after": "soon" }), undefined);
    assert.equal(retryAfterMs(undefined), undefined);
  });
});
