"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");

const { formatDuration, parseDuration, toHours } = require("./duration");

test("parses hours and minutes", () => {
  assert.equal(parseDuration("1h30m"), 5400);
});

test("parses seconds", () => {
  assert.equal(parseDuration("90s"), 90);
});

test("formats with zero padding", () => {
  assert.equal(formatDuration(3661), "1:01:01");
});

test("rejects negative durations", () => {
  assert.throws(() => formatDuration(-5), RangeError);
});

test("rejects fractions of a second", () => {
  assert.throws(() => formatDuration(1.5), TypeError);
});

test("converts to hours", () => {
  assert.ok(Math.abs(toHours(4000) - 1.1111) < 1e-4);
});
