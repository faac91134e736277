import type { ResultV1 } from '@redis-benchdb/result';

/**
 * The point of a group: its members side by side. One row per member, one column per cell (in the
 * order first seen): the median ops/s and, from the second row on, the ratio to the first. A `*`
 * marks a client-bound cell, whose figure is a floor for the server rather than its capacity. A cell
 * whose replies were mostly errors (warning ERRORS) shows `errors` and takes no part in a ratio.
 */
export function comparisonTable(groupId: string, docs: readonly { label: string; doc: ResultV1 }[]): string {
  if (docs.length === 0) return '';
  const cells: string[] = [];
  for (const { doc } of docs) for (const c of doc.cells) if (!cells.includes(c.label)) cells.push(c.label);
  const first = docs[0]!.doc;
  const erroring = (doc: ResultV1, label: string) =>
    doc.warnings.some((w) => w.code === 'ERRORS' && w.cell === label);
  const rows = docs.map(({ label, doc }, i) => [
    label,
    ...cells.map((name) => {
      const cell = doc.cells.find((c) => c.label === name);
      if (!cell) return '-';
      if (erroring(doc, name)) return 'errors';
      const ops = cell.opsPerSec.median;
      const base = first.cells.find((c) => c.label === name)?.opsPerSec.median;
      const ratio = i > 0 && base && !erroring(first, name) ? ` (${(ops / base).toFixed(2)}x)` : '';
      return `${Math.round(ops).toLocaleString('en-US')}${ratio}${cell.saturation.clientBound ? '*' : ''}`;
    }),
  ]);
  const header = ['', ...cells];
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col]!.length)));
  const line = (cols: string[]) =>
    cols
      .map((c, col) => (col === 0 ? c.padEnd(widths[col]!) : c.padStart(widths[col]!)))
      .join('  ')
      .trimEnd();
  const anyClientBound = docs.some(({ doc }) => doc.cells.some((c) => c.saturation.clientBound));
  return [
    `run group ${groupId}: ops/s, median over trials; (Nx) is the ratio to the first row${anyClientBound ? '; * client-bound' : ''}`,
    line(header),
    ...rows.map(line),
  ].join('\n');
}

export function printComparison(
  groupId: string,
  docs: readonly { label: string; doc: ResultV1 }[],
  stream: NodeJS.WritableStream,
): void {
  const table = comparisonTable(groupId, docs);
  if (table) stream.write(`\n${table}\n`);
}
