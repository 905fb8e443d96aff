/** The middle value of the sample (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    throw new RangeError("median of an empty sample");
  }
  const mid = Math.floor(values.length / 2);
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/** The population standard deviation. */
export function stddev(values: readonly number[]): number {
  const mean = values.reduce((sum, x) => sum + x, 0) / values.length;
  const squares = values.reduce((sum, x) => sum + (x - mean) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

/** The value below which `p` percent of the sample lies (nearest rank); p is 0 to 100. */
export function percentile(values: readonly number[], p: number): number {
  if (p < 0 || p > 100) {
    throw new TypeError(`percentile out of range: ${p}`);
  }
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
