// The paired 95% half-width of every member against the base, by the number of rounds used, over
// the group's server-bound cells (at least 90% of trials limited by the server): the measurement that
// fixes the comparison profile's trial count (issue 29). Reads a group's signed result files.
//   pnpm -s build && node scripts/dataset-halfwidth.mjs data/results/<machine> [RUN-GROUP-ID] [--json]
import { readdirSync, readFileSync } from 'node:fs';
import { halfWidthsByRounds, SERVER_BOUND_SHARE, summarize } from './lib/halfwidth.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const [dir, only] = args.filter((a) => a !== '--json');
if (!dir) {
  console.error('usage: node scripts/dataset-halfwidth.mjs data/results/<machine> [RUN-GROUP-ID] [--json]');
  process.exit(2);
}
const groups = new Map();
for (const f of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'manifest.json')) {
  const doc = JSON.parse(JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')).payload);
  const id = doc.runGroup?.id;
  if (id && (!only || id === only)) groups.set(id, [...(groups.get(id) ?? []), doc]);
}
if (groups.size === 0) {
  console.error(
    `dataset-halfwidth: no run group${only ? ` ${only}` : ''} in ${dir}: give a directory of data/results`,
  );
  process.exit(2);
}
const out = [];
for (const [id, docs] of groups) {
  const rounds = Math.min(...docs.flatMap((d) => d.cells.map((c) => c.trials.length)));
  const counts = [...new Set([2, 3, 5, 8, 10, 15, 20, 30, 40, 50].filter((k) => k < rounds).concat(rounds))];
  const rows = summarize(halfWidthsByRounds(docs, counts));
  out.push({ group: id, members: docs.length, rounds, rows });
  if (json) continue;
  console.log(
    `run group ${id}: ${docs.length} members, ${rounds} rounds; server-bound: >= ${SERVER_BOUND_SHARE * 100}% of trials`,
  );
  console.log('rounds  pairs  median ±  within 3%  worst');
  for (const r of rows) {
    const pct = (x) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
    console.log(
      `${String(r.rounds).padStart(6)}  ${String(r.serverBoundPairs).padStart(5)}  ${pct(r.medianHalfWidth).padStart(8)}  ${pct(r.withinTarget).padStart(9)}  ${r.worst ? `${r.worst.label} · ${r.worst.member} ±${pct(r.worst.halfWidth)}` : '-'}`,
    );
  }
}
if (json) console.log(JSON.stringify(out, null, 2));
