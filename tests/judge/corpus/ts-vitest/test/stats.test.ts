import { describe, expect, it } from "vitest";

import { median, percentile, stddev } from "../src/stats";

describe("median", () => {
  it.each([
    { values: [7], expected: 7 },
    { values: [1, 2, 3], expected: 2 },
    { values: [5, 1, 3], expected: 3 },
    { values: [4, 1, 3, 2], expected: 2.5 },
  ])("of $values is $expected", ({ values, expected }) => {
    expect(median(values)).toBe(expected);
  });

  it("rejects an empty sample", () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe("stddev", () => {
  it("is the population standard deviation", () => {
    expect(stddev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2, 5);
  });
});

describe("percentile", () => {
  it("takes the nearest rank", () => {
    expect(percentile([15, 20, 35, 40, 50], 40)).toBe(20);
  });

  it("rejects percentiles above 100", () => {
    expect(() => percentile([1, 2, 3], 150)).toThrow(RangeError);
  });
});
