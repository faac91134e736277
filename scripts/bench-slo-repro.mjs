// Is `run --slo` reproducible, and bounded? The same search, run several times (3 by default) as
// separate `redis-benchdb run` processes against one throwaway redis-server, with its answers,
// brackets and durations side by side, and whether the brackets overlap.
//   pnpm bench:slo-repro [--runs 3] [--slo 'p99<=1ms'] [--test get] [--connections 50]
//     [--keyspace 1000000] [--budget 60] [--no-pin] [--json]
// Each run is `redis-benchdb run -h 127.0.0.1 -p PORT -t TEST -c C -d 256 -r KEYS [--preload]
// --slo OBJ --slo-budget B --trials 1 --no-store --json`, one after the other, pinned like the
// other benches (server on the last CPU, the CLI on the rest). A search's time is its own count
// (from the probe's end: the budget's), and the whole process's wall time is printed beside it
// (a GET run also preloads its keys first, outside the budget).
//
// Reproducible: every run found an answer and their brackets [pass, fail] share a common range
// (the highest pass is below the lowest fail), so no run's answer contradicts another's bracket.
// Bounded: every search's time is within its budget.

import { parseArgs } from 'node:util';
import { benchServer, benchSession, fmt, markdownTable, positiveFlag } from './lib/bench.mjs';
import { CLI } from './lib/redis-benchdb.mjs';

const SCRIPT = 'bench-slo-repro';
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    slo: { type: 'string', default: 'p99<=1ms' },
    test: { type: 'string', default: 'get' },
    connections: { type: 'string', default: '50' },
    keyspace: { type: 'string', default: '1000000' },
    budget: { type: 'string', default: '60' },
    pin: { type: 'boolean', default: true },
    json: { type: 'boolean', default: false },
    // Another build of the CLI to measure.
    cli: { type: 'string', default: CLI },
  },
  allowNegative: true,
});
const runs = positiveFlag(SCRIPT, args, 'runs', { integer: true });
const connections = positiveFlag(SCRIPT, args, 'connections', { integer: true });
const keyspace = positiveFlag(SCRIPT, args, 'keyspace', { integer: true });
const budgetSec = positiveFlag(SCRIPT, args, 'budget');
const test = String(args.test).toLowerCase();

const session = benchSession(SCRIPT);
const { log } = session;

await session.main(async () => {
  const { server, pinning: pin } = await benchServer(session, { pin: args.pin, tools: 'the CLI' });
  const argv = [
    args.cli,
    ...['run', '-h', '127.0.0.1', '-p', String(server.port), '-t', test, '-c', String(connections)],
    ...['-d', '256', '-r', String(keyspace), ...(test === 'get' ? ['--preload'] : [])],
    ...['--slo', args.slo, '--slo-budget', String(budgetSec), '--trials', '1', '--no-store', '--json'],
  ];
  log(`each run: node ${argv.map((a) => (/[<>=' ]/.test(a) ? `'${a}'` : a)).join(' ')}`);

  const results = [];
  for (let i = 1; i <= runs; i++) {
    const t0 = performance.now();
    const out = await session.run('redis-benchdb', process.execPath, argv);
    const wallSec = (performance.now() - t0) / 1000;
    const search = readSearch(out);
    results.push({ run: i, wallSec, ...search });
    log(
      `run ${i}: ${search.outcome}${search.answerOpsPerSec === null ? '' : `, ${fmt(search.answerOpsPerSec)} ops/s`} in ${search.elapsedSec.toFixed(1)} s (wall ${wallSec.toFixed(1)} s)`,
    );
  }

  const answered = results.every((r) => r.outcome === 'bracketed');
  const highestPass = Math.max(...results.map((r) => r.bracket.passOpsPerSec ?? Number.NaN));
  const lowestFail = Math.min(...results.map((r) => r.bracket.failOpsPerSec ?? Number.NaN));
  const overlap = answered && highestPass < lowestFail;
  const bounded = results.every((r) => r.elapsedSec <= r.budgetSec);
  const verdict = {
    answered,
    overlap,
    common: overlap ? { fromOpsPerSec: highestPass, toOpsPerSec: lowestFail } : null,
    bounded,
    longestSearchSec: Math.max(...results.map((r) => r.elapsedSec)),
  };
  if (args.json) {
    console.log(
      JSON.stringify(
        { server: { version: server.version, pinned: pin.server }, argv, results, verdict },
        null,
        2,
      ),
    );
    return;
  }
  const rate = (/** @type {number | null} */ x) => (x === null ? '-' : fmt(x));
  console.log(
    `\n${test.toUpperCase()} at ${args.slo}, ${connections} connections, ${fmt(keyspace)} keys, budget ${budgetSec} s\n`,
  );
  console.log(
    markdownTable(
      ['run', 'outcome', 'answer ops/s', 'bracket ops/s', 'steps', 'search s', 'wall s'],
      results.map((r) => [
        String(r.run),
        r.outcome,
        rate(r.answerOpsPerSec),
        `${rate(r.bracket.passOpsPerSec)}–${rate(r.bracket.failOpsPerSec)}`,
        String(r.steps),
        r.elapsedSec.toFixed(1),
        r.wallSec.toFixed(1),
      ]),
      2,
    ),
  );
  console.log(
    `\nbrackets overlap: ${overlap ? `yes, ${fmt(highestPass)}–${fmt(lowestFail)} ops/s is in every one` : answered ? `no (highest pass ${fmt(highestPass)} >= lowest fail ${fmt(lowestFail)})` : 'no: not every run found an answer'}`,
  );
  console.log(
    `every search within its ${budgetSec} s budget: ${bounded ? 'yes' : 'no'} (longest ${verdict.longestSearchSec.toFixed(1)} s)`,
  );
  for (const r of results) if (r.reason) console.log(`run ${r.run}: ${r.reason}`);
  // The response time counts from the intended send: how much of it was the client's own lateness.
  const ms = (/** @type {number | undefined} */ us) => (us === undefined ? '-' : (us / 1000).toFixed(3));
  console.log(
    "\nthe client's own send lateness, step by step (ms; part of the p99 from the intended send):\n",
  );
  console.log(
    markdownTable(
      ['run', 'offered ops/s', 'pass', 'p99 from intended', 'late p50', 'late p99', 'late max'],
      results.flatMap((r) =>
        r.stepList.map((s) => [
          String(r.run),
          fmt(s.offeredOpsPerSec),
          s.pass ? 'yes' : 'no',
          ms(s.responseTimeUs.p99Us),
          ms(s.sendLatenessUs?.p50Us),
          ms(s.sendLatenessUs?.p99Us),
          ms(s.sendLatenessUs?.maxUs),
        ]),
      ),
      2,
    ),
  );
});

/**
 * The search of the one cell of `run --slo --json`, checked.
 * @param {string} out the CLI's stdout
 */
function readSearch(out) {
  let search;
  try {
    search = JSON.parse(out).cells?.[0]?.trials?.[0]?.sloSearch;
  } catch {
    // reported just below
  }
  if (!search || typeof search.elapsedSec !== 'number' || !search.bracket)
    throw new Error(`redis-benchdb --json: no cells[0].trials[0].sloSearch in:\n${out.slice(0, 2000)}`);
  return {
    outcome: search.outcome,
    answerOpsPerSec: search.answerOpsPerSec,
    bracket: search.bracket,
    elapsedSec: search.elapsedSec,
    budgetSec: search.budgetSec,
    steps: search.steps.length,
    stepList: search.steps,
    reason: search.reason,
  };
}
