import type { CrossCheck } from '@redis-benchdb/result';

/**
 * The commandstats cross-check of a cell: the server's own count of the cell's commands (calls and
 * rejected calls, INFO commandstats before and after) against the replies the client received.
 */
export function crossCheck(
  names: string[],
  expected: number,
  before: Map<string, { calls: number; rejectedCalls: number }>,
  after: Map<string, { calls: number; rejectedCalls: number }> | null,
): CrossCheck {
  if (!after)
    return {
      status: 'unavailable',
      expected,
      observed: null,
      commands: names,
      note: 'INFO commandstats could not be read after the cell',
    };
  let observed = 0;
  for (const n of names) {
    const a = after.get(n);
    if (!a)
      return {
        status: 'unavailable',
        expected,
        observed: null,
        commands: names,
        note: `the server keeps no commandstats for "${n}" (unknown command?)`,
      };
    const b = before.get(n) ?? { calls: 0, rejectedCalls: 0 };
    observed += a.calls + a.rejectedCalls - b.calls - b.rejectedCalls;
  }
  if (observed === expected) return { status: 'match', expected, observed, commands: names };
  return {
    status: 'mismatch',
    expected,
    observed,
    commands: names,
    note:
      observed > expected
        ? 'other clients ran the same commands during the cell'
        : 'the server counted fewer calls than replies received',
  };
}
