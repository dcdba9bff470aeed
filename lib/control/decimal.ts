/**
 * A number written in decimal: digits with an optional fraction and exponent (`60`, `0.5`, `.5`, `6e1`, `5e-7`).
 * `Number()` would also read `0x3c` as 60, `0b1010` as 10, `' 60 '` as 60 and `''` as 0. The exponent stays
 * allowed because `String()` writes numbers below 1e-6 that way, and the CDK construct passes settings to the
 * controller's environment through `String()` (lib/control/environment.ts): what synthesizes must start.
 */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The number a setting's value stands for: a number as is, a string only in decimal notation; NaN otherwise. */
export function decimalNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN;
}
