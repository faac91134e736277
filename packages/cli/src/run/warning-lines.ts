import type { ResultV1 } from '@redis-benchdb/result';
/** A result's warning as the run prints it: its code, the cell it is about (if one), and its message. */
export interface PrintedWarning {
  code: string;
  cell?: string | null;
  message: string;
}

/** How many cells a grouped line names before "and N more". */
const CELLS_NAMED = 3;

/**
 * The run's closing warnings, one line per code: on a busy host every cell carries BUSY_HOST, and 30
 * lines of it pushed the result's address off the screen (issue 41). A code that one cell carries keeps
 * its own line; one that several carry names the first few cells and gives the first one's message
 * (each cell's own figure is on its result line above, and all of them in the result).
 */
export function warningLines(warnings: readonly PrintedWarning[]): string[] {
  const byCode = new Map<string, PrintedWarning[]>();
  for (const w of warnings) {
    const key = w.cell ? w.code : `${w.code}\0${byCode.size}`;
    byCode.set(key, [...(byCode.get(key) ?? []), w]);
  }
  return [...byCode.values()].map((group) => {
    const first = group[0]!;
    if (group.length === 1)
      return `warning ${first.code}${first.cell ? ` (${first.cell})` : ''}: ${first.message}`;
    const named = group.slice(0, CELLS_NAMED).map((w) => w.cell);
    const more = group.length - named.length;
    const cells = more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
    return `warning ${first.code} in ${group.length} cells (${cells}); ${first.cell}: ${first.message}`;
  });
}

/** Say which cells got WRONG_REPLIES; true when any did (the run then exits 1). */
export function reportWrongReplies(doc: ResultV1, log: (s: string) => void): boolean {
  const cells = doc.warnings.filter((w) => w.code === 'WRONG_REPLIES').map((w) => w.cell);
  if (cells.length === 0) return false;
  log(
    `error: the server's replies were wrong in ${cells.join(', ')} (warning WRONG_REPLIES): these are not results of the commands, and the database refuses them. Check what answers on that address (a proxy, another product) before measuring it.`,
  );
  return true;
}
