/** Timing of repeated calls as `mep call --repeat` prints it. */

/** `label: N calls, min 0.41 ms, median 0.52 ms, max 3.10 ms` (the median of an even count is the mean of the middle two). */
export function timingLine(label: string, times: readonly number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return `${label}: no calls`;
  const median = n % 2 === 1 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  const ms = (t: number): string => `${t < 10 ? t.toFixed(2) : t.toFixed(1)} ms`;
  return `${label}: ${n} call${n === 1 ? '' : 's'}, min ${ms(sorted[0] as number)}, median ${ms(median)}, max ${ms(sorted[n - 1] as number)}`;
}
