/**
 * Where a load file's time 0 is on the clock, when the file says: `trace` writes its range in the header
 * (lib/operator/trace-file.ts: `# range: 2026-11-03T00:00:00Z – 2026-11-10T00:00:00Z (--since 7d), exported …`).
 * A hand-written file has no such line: its hours are counted from its start. Only a `# range:` line before the
 * header row counts, so a comment further down cannot move the clock.
 */
const RANGE_LINE = /^#\s*range:\s*(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\b/;

/** Epoch seconds of the trace's start, or undefined when the file does not give it. */
export function traceStartSeconds(text: string): number | undefined {
  for (const raw of text.split(/\r?\n/, 200)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('@')) continue;
    if (!line.startsWith('#')) return undefined;
    const match = RANGE_LINE.exec(line);
    if (match !== null) {
      const ms = Date.parse(match[1] as string);
      return Number.isFinite(ms) ? ms / 1000 : undefined;
    }
  }
  return undefined;
}
