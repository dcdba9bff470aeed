/** How a value a user gave is quoted in an error message (config.ts, scheduled-floors.ts). */
const SHOWN_LENGTH = 80;

/**
 * The value as it was given, for an error message: a string quoted (with JSON escapes, so a newline or a quote
 * inside it is visible), an array or object as JSON (`[60]`, not `60`), a number as written; cut short past 80
 * characters so one bad value cannot flood the message.
 */
export function shown(value: unknown): string {
  const cut = (text: string) => (text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH - 3)}...` : text);
  if (typeof value === 'string') return `'${cut(JSON.stringify(value).slice(1, -1))}'`;
  if (typeof value === 'number' || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return `(a ${typeof value})`;
  try {
    return cut(JSON.stringify(value) ?? String(value));
  } catch {
    return cut(String(value));
  }
}
