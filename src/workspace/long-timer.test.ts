/**
 * Timers of any length: a delay over setTimeout's 2³¹−1 ms is armed in steps and fires once, when its time has
 * come — not after 1 ms, as one `setTimeout` of that length does. The clock and the timers are node:test's mocks,
 * so 25 days and 30 years pass at once.
 */
import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { MAX_TIMEOUT_MS, armLongTimer } from "./long-timer.ts";

const DAY = 24 * 3_600_000;

describe("long timers", () => {
  for (const [name, ms] of [["25 days (just over one setTimeout)", 2 ** 31 + 5_000], ["30 days", 30 * DAY], ["30 years", 30 * 365.25 * DAY]] as const) {
    it(`a timer of ${name} fires once, at its time`, () => {
      mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_800_000_000_000 });
      try {
        let fired = 0;
        armLongTimer(ms, () => fired++);
        mock.timers.tick(1);
        assert.equal(fired, 0, "not at once");
        mock.timers.tick(ms - 2);
        assert.equal(fired, 0, "not a millisecond early");
        mock.timers.tick(1);
        assert.equal(fired, 1, "at its time");
        mock.timers.tick(10 * MAX_TIMEOUT_MS);
        assert.equal(fired, 1, "once");
      } finally {
        mock.timers.reset();
      }
    });
  }

  it("a long timer disarmed before its time never fires; a bad delay is refused", () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    try {
      let fired = 0;
      const stop = armLongTimer(3 * MAX_TIMEOUT_MS, () => fired++);
      mock.timers.tick(MAX_TIMEOUT_MS + 1);
      stop();
      mock.timers.tick(3 * MAX_TIMEOUT_MS);
      assert.equal(fired, 0);
      for (const bad of [Infinity, Number.NaN, -1]) assert.throws(() => armLongTimer(bad, () => {}), /a timer needs a finite number of milliseconds ≥ 0/);
    } finally {
      mock.timers.reset();
    }
  });
});
