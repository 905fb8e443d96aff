import { parseQuantity } from "./quantity";

describe("parseQuantity", () => {
  test("reads a whole number", () => {
    expect(parseQuantity(" 3 ")).toBe(3);
  });

  test("rejects zero", () => {
    expect(() => parseQuantity("0")).toThrow(RangeError);
  });

  test("rejects fractions", () => {
    expect(() => parseQuantity("1.5")).toThrow(TypeError);
  });
});
