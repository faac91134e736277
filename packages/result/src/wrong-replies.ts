import type { CrossCheck, ResultV1 } from './generated/result-v1.js';

/**
 * Wrong answers are not results. A cell whose replies were of a type its command never returns
 * (an integer to GET), or whose server counted far fewer calls than the client received replies,
 * measured something other than the command: a proxy or a fake answering on the server's behalf,
 * or a server that replies without running the command. Such a cell gets a WRONG_REPLIES warning
 * from the runner, the run exits non-zero, and ingest refuses the result (submission/submitted-result.ts).
 *
 * Redis, Valkey and KeyDB count every call in INFO commandstats, so the counts agree exactly unless
 * someone ran CONFIG RESETSTAT or restarted the server during the cell. More calls than replies is
 * other clients running the same command (crossCheck says so) and is not wrong; fewer is.
 */

/** The share of the client's count the server may fall short by before the cell is wrong: 1%. */
export const CROSS_CHECK_SHORTFALL_TOLERANCE = 0.01;

/** The server counted fewer calls than replies received, by more than the tolerance. */
export function crossCheckShortfall(c: CrossCheck): boolean {
  return (
    c.status === 'mismatch' &&
    c.observed !== null &&
    c.expected - c.observed > CROSS_CHECK_SHORTFALL_TOLERANCE * c.expected
  );
}

/** A sentence on a shortfall, for the warning and for a refusal. */
export function describeShortfall(c: CrossCheck): string {
  const pct = c.expected > 0 ? (((c.expected - (c.observed ?? 0)) / c.expected) * 100).toFixed(1) : '100';
  return `the server counted ${(c.observed ?? 0).toLocaleString('en-US')} calls of ${c.commands.join(', ')} (INFO commandstats) where the client received ${c.expected.toLocaleString('en-US')} replies: ${pct}% fewer, beyond the ${CROSS_CHECK_SHORTFALL_TOLERANCE * 100}% tolerated`;
}

/**
 * The cells of a result whose answers were wrong, each with why: a WRONG_REPLIES warning, or a
 * cross-check shortfall (which a result from a runner older than the warning still shows).
 */
export function wrongReplyCells(r: Pick<ResultV1, 'cells' | 'warnings'>): { cell: string; reason: string }[] {
  const out: { cell: string; reason: string }[] = [];
  const flagged = new Set<string>();
  for (const w of r.warnings)
    if (w.code === 'WRONG_REPLIES') {
      const cell = w.cell ?? '(the run)';
      flagged.add(cell);
      out.push({ cell, reason: w.message });
    }
  for (const c of r.cells) {
    if (flagged.has(c.label)) continue;
    const short = [c.crossCheck, ...c.trials.map((t) => t.crossCheck)].find(crossCheckShortfall);
    if (short) out.push({ cell: c.label, reason: describeShortfall(short) });
  }
  return out;
}
