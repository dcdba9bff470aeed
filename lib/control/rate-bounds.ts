/**
 * What a counted rate proves. CloudWatch's rates are counts over a period (NumberOfMessagesSent is a Sum): N = λ·T
 * arrivals, which for independent senders vary by about √N. The law sizes each move on the side of that
 * uncertainty that keeps it from undoing itself: growth on the lowest rate the count leaves plausible (the age
 * loop adds the rest on the next tick if it was more), a shrink on the highest. Sized on the bare count, the
 * seed's 250 ms windows at 800/s (200 ± 14 arrivals) read 744/s, the pool shrank 18 → 17, the next window read
 * 912/s and it grew to 21. Over CloudWatch's minute the bound moves the rate by 0.9 % at 800/s and 3.7 % at 50/s.
 * Without a period the rate stands as it is.
 */

// Standard errors allowed for: with two, a count lands beyond the bound about 2 % of the time.
const STANDARD_ERRORS = 2;

/** Worked example: 912/s over 0.25 s = 228 ± 15.1 arrivals → (228 − 30.2) ÷ 0.25 = 791/s. */
export function rateLowerBound(ratePerSecond: number, periodSeconds: number | undefined): number {
  if (periodSeconds === undefined || !(periodSeconds > 0)) return ratePerSecond;
  const count = ratePerSecond * periodSeconds;
  // min: a rate so small that its count underflows still bounds itself.
  return Math.min(ratePerSecond, Math.max(0, count - STANDARD_ERRORS * Math.sqrt(count)) / periodSeconds);
}

/** Worked example: 744/s over 0.25 s = 186 ± 13.6 arrivals → (186 + 27.3) ÷ 0.25 = 853/s. */
export function rateUpperBound(ratePerSecond: number, periodSeconds: number | undefined): number {
  if (periodSeconds === undefined || !(periodSeconds > 0)) return ratePerSecond;
  const count = ratePerSecond * periodSeconds;
  return Math.max(ratePerSecond, (count + STANDARD_ERRORS * Math.sqrt(count)) / periodSeconds);
}
