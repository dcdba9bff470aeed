/**
 * What a counted rate proves. CloudWatch's rates are counts over a period (NumberOfMessagesSent is a Sum): N = λ·T
 * arrivals, which for independent senders vary by about √N. The law sizes each move on the side of that
 * uncertainty that keeps it from undoing itself: growth on the lowest rate the count leaves plausible (the age
 * loop adds the rest on the next tick if it was more), a shrink on the highest. Sized on the bare count, the
 * seed's 250 ms windows at 800/s (200 ± 14 arrivals) would read 744/s and shrink the pool 18 → 17, then read
 * 912/s and grow it to 21. Over CloudWatch's minute the bound moves the rate by 0.9 % at 800/s and 3.7 % at 50/s.
 * Without a period the rate stands as it is.
 */

// Standard errors allowed for: with two, a count lands beyond the bound about 2 % of the time.
const STANDARD_ERRORS = 2;

/** Worked example: 912/s over 0.25 s = 228 ± 15.1 arrivals → 912 − 2 × √(912 ÷ 0.25) = 791/s. */
export function rateLowerBound(ratePerSecond: number, periodSeconds: number | undefined): number {
  if (periodSeconds === undefined || !(periodSeconds > 0)) return ratePerSecond;
  // √N ÷ T = √(λ ÷ T): no λ·T product, which overflows for an absurd rate and turned a grow into NaN.
  const bound = ratePerSecond - STANDARD_ERRORS * Math.sqrt(ratePerSecond / periodSeconds);
  // Never negative, never above the rate itself.
  return Math.min(ratePerSecond, Math.max(0, bound));
}

/** Worked example: 744/s over 0.25 s = 186 ± 13.6 arrivals → 744 + 2 × √(744 ÷ 0.25) = 853/s. */
export function rateUpperBound(ratePerSecond: number, periodSeconds: number | undefined): number {
  if (periodSeconds === undefined || !(periodSeconds > 0)) return ratePerSecond;
  return Math.max(ratePerSecond, ratePerSecond + STANDARD_ERRORS * Math.sqrt(ratePerSecond / periodSeconds));
}
