import { discounted, formatPrice } from "./price";

describe("formatPrice", () => {
  test.each([
    [100, "$1.00"],
    [105, "$1.05"],
    [1999, "$19.99"],
    [5, "$0.05"],
  ])("formats %i cents as %s", (cents, text) => {
    expect(formatPrice(cents)).toBe(text);
  });
});

describe("discounted", () => {
  test("takes a percentage off", () => {
    expect(discounted(19.99, 15)).toBeCloseTo(16.99, 2);
  });

  test("leaves the price alone without a discount", () => {
    expect(discounted(5, 0)).toBe(5);
  });
});
