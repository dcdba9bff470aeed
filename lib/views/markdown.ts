/** A markdown table's first two lines: the header row and its separator. */
export function markdownHeader(columns: readonly string[]): [string, string] {
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
}
