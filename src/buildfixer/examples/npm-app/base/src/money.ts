/** Amounts are kept in integer cents to avoid floating-point drift. */
export type Cents = number;

export function formatCents(amount: Cents, currency = "EUR"): string {
  const sign = amount < 0 ? "-" : "";
  const abs = Math.abs(amount);
  const units = Math.floor(abs / 100);
  const cents = String(abs % 100).padStart(2, "0");
  return `${sign}${units}.${cents} ${currency}`;
}

export function percentOf(amount: Cents, percent: number): Cents {
  return Math.round((amount * percent) / 100);
}
