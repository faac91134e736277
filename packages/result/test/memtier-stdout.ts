// Reads the results table memtier_benchmark prints on stdout (the "ALL STATS" block), so tests can
// compare an importer's figures with the ones the tool itself printed, without copying numbers.
//
//   ALL STATS
//   ==========...
//   Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency  ...  KB/sec
//   ----------...
//   Sets        24244.04          ---          ---         0.17924         0.10300  ...  2625.19
//
// Each row maps a column name ("Ops/sec", "Avg. Latency", "p99.9 Latency", ...) to the text printed
// under it ("24244.04", or "---" where memtier printed no figure).

export type MemtierRow = Record<string, string>;

const COLUMN =
  /Type|Ops\/sec|Hits\/sec|Misses\/sec|MOVED\/sec|ASK\/sec|Avg\. Latency|p[\d.]+ Latency|KB\/sec/g;

/** The rows of the table under `header` ("ALL STATS" for a single run), keyed by their Type. */
export function memtierTable(stdout: string, header = 'ALL STATS'): Record<string, MemtierRow> {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) throw new Error(`no "${header}" table in memtier_benchmark's stdout`);
  const columns = lines[start + 2]?.match(COLUMN) ?? [];
  if (columns[0] !== 'Type') throw new Error(`no column header under "${header}"`);
  const rows: Record<string, MemtierRow> = {};
  for (const line of lines.slice(start + 4)) {
    const cells = line.trim().split(/\s+/);
    if (cells.length !== columns.length) break;
    rows[cells[0]!] = Object.fromEntries(columns.map((c, i) => [c, cells[i]!]));
  }
  return rows;
}

/** A latency memtier printed in milliseconds ("0.10300") in microseconds, to its printed precision. */
export const printedMsToUs = (ms: string): number => Math.round(Number(ms) * 1e5) / 100;
