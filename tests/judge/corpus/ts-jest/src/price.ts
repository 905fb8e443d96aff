/** "$1.05" for 105 cents. */
export function formatPrice(cents: number): string {
  const dollars = Math.floor(cents / 100);
  const rest = String(cents % 100).padEnd(2, "0");
  return `$${dollars}.${rest}`;
}

/** The price after taking `percent` percent off. */
export function discounted(price: number, percent: number): number {
  const off = Math.floor(price * percent) / 100;
  return price - off;
}
