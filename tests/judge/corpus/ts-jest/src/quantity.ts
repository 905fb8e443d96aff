export const MAX_QUANTITY = 99;

/** A quantity typed by a customer: a whole number from 1 to MAX_QUANTITY. */
export function parseQuantity(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(value)) {
    throw new TypeError(`not a whole number: ${JSON.stringify(text)}`);
  }
  if (value < 1 || value > MAX_QUANTITY) {
    throw new Error(`quantity out of range: ${value}`);
  }
  return value;
}
