import {
  intervalDecimals,
  intervalText,
  noVerdictWarnings,
  type PairedRatio,
  pairedCellRatio,
  pairedVerdict,
  type ResultV1,
} from '@redis-benchdb/result';

type Cell = ResultV1['cells'][number];

/**
 * "1.030x, 0.970–1.090" and the verdict of the site's rules (pairedVerdict): "faster" or "slower" when
 * the interval excludes 1, "no verdict: BUSY_HOST" when a warning keeps the cell from one.
 */
function pairedText(p: PairedRatio, rounds: number, warnings: { base: string[]; other: string[] }): string {
  // The interval's decimals (intervalText): a bound that excludes 1 never prints as 1.000.
  const parts = [`${p.ratio.toFixed(intervalDecimals(p.ci95Low, p.ci95High))}x`];
  if (p.ci95Low !== null && p.ci95High !== null) parts.push(intervalText(p.ci95Low, p.ci95High));
  const v = pairedVerdict(p, warnings.base, warnings.other);
  if (v.outcome !== 'no verdict') parts.push(v.outcome);
  else if (v.rule === 'flagged')
    parts.push(`no verdict: ${[...new Set([...warnings.base, ...warnings.other])].join(', ')}`);
  if (p.n !== rounds) parts.push(`${p.n} rounds`);
  return parts.join(', ');
}

/** The warnings that keep this cell of this result from a verdict (the site's rule). */
function flags(doc: ResultV1, cell: Cell): string[] {
  return noVerdictWarnings(doc.warnings, {
    label: cell.label,
    unstable: cell.unstable,
    clientBound: cell.saturation.clientBound,
    interference: cell.interference ?? null,
  });
}

/**
 * The point of a group: its members side by side. One row per member, one column per cell (in the
 * order first seen): the median ops/s and, from the second row on, how it compares with the first
 * row. An interleaved group (runGroup.schedule) compares round by round: the geometric mean of the
 * per-round ratios with its 95% interval, "faster" or "slower" only when the interval excludes 1.
 * An older, sequential group can only compare medians. A `*` marks a client-bound cell, whose
 * figure is a floor for the server rather than its capacity. A cell whose replies were mostly
 * errors (warning ERRORS) shows `errors` and takes no part in a ratio.
 */
export function comparisonTable(groupId: string, docs: readonly { label: string; doc: ResultV1 }[]): string {
  if (docs.length === 0) return '';
  const cells: string[] = [];
  for (const { doc } of docs) for (const c of doc.cells) if (!cells.includes(c.label)) cells.push(c.label);
  const first = docs[0]!.doc;
  const paired = docs.every(({ doc }) => doc.runGroup?.schedule !== undefined);
  const rounds = paired
    ? Math.max(0, ...docs.flatMap(({ doc }) => doc.cells.map((c) => c.trials.length)))
    : 0;
  const erroring = (doc: ResultV1, label: string) =>
    doc.warnings.some((w) => w.code === 'ERRORS' && w.cell === label);
  const rows = docs.map(({ label, doc }, i) => [
    label,
    ...cells.map((name) => {
      const cell = doc.cells.find((c) => c.label === name);
      if (!cell) return '-';
      if (erroring(doc, name)) return 'errors';
      const base = i > 0 && !erroring(first, name) ? first.cells.find((c) => c.label === name) : undefined;
      let versus = '';
      if (base && paired) {
        const p = pairedCellRatio(base, cell);
        if (p) versus = ` (${pairedText(p, rounds, { base: flags(first, base), other: flags(doc, cell) })})`;
      } else if (base?.opsPerSec.median) {
        versus = ` (${(cell.opsPerSec.median / base.opsPerSec.median).toFixed(2)}x)`;
      }
      return `${Math.round(cell.opsPerSec.median).toLocaleString('en-US')}${versus}${cell.saturation.clientBound ? '*' : ''}`;
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
  const how = paired
    ? `(Nx, lo-hi) is the geometric mean of the per-round ratios to the first row and its 95% interval (paired, ${rounds} round${rounds === 1 ? '' : 's'}); faster/slower only when the interval excludes 1 and neither cell is flagged (BUSY_HOST, CPU_STEAL, DRIFT, UNSTABLE, CLIENT_BOUND)`
    : '(Nx) is the ratio to the first row';
  return [
    `run group ${groupId}: ops/s, median over trials; ${how}${anyClientBound ? '; * client-bound' : ''}`,
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
