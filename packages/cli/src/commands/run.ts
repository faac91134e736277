import {
  choice,
  custom,
  defineCommand,
  type FlagsOf,
  flag,
  type OptionDef,
  repeatable,
  text,
} from '@redis-benchdb/command';
import {
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_REPLY_TIMEOUT_SEC,
  DEFAULT_SLO_BUDGET_SEC,
  STALL_END_MARGIN_SEC,
} from '@redis-benchdb/engine/options';
import type { RunPlan } from '@redis-benchdb/runner';
import { CLOUD_METADATA, database, ingestServer, json } from '../options/common.js';
import { int, num } from '../options/numbers.js';
import { TARGET_OPTIONS } from '../options/target.js';
import { parseBytes, parseRatio, parseSize } from '../options/values.js';
import { cellOverrides, checkRunFlags, DEFAULT_PROFILE, planRun } from '../run/plan.js';

// The run command: its flags (each with its help and default), the help after them, and its action.
// The rules between flags and the plan they make are in run/plan.ts; the runs in run/.

/** A flag that sets the cell option `key` (of every ad hoc cell, or of every suite cell). */
const cell = <K extends keyof CellOptions>(key: K, def: OptionDef<NonNullable<CellOptions[K]>>) => ({
  ...def,
  cell: key,
});

const d = DEFAULT_CELL_OPTIONS;

export const RUN_OPTIONS = {
  clients: cell(
    'connections',
    int('-c, --clients <n>', 'parallel connections', 'clients (-c)', { default: d.connections }),
  ),
  requests: cell(
    'requests',
    int('-n, --requests <n>', 'total requests per test', 'request count (-n)', { default: d.requests }),
  ),
  datasize: cell(
    'valueSizeBytes',
    custom('-d, --datasize <bytes>', 'value size: 3, 4k, 64KiB, or a range 16-1024', parseSize, {
      default: String(d.valueSizeBytes),
    }),
  ),
  pipeline: cell(
    'pipelineDepth',
    int('-P, --pipeline <n>', 'requests in flight per connection', 'pipeline depth (-P)', {
      default: d.pipelineDepth,
    }),
  ),
  keyspacelen: cell(
    'keyspaceSize',
    int('-r, --keyspacelen <n>', "distinct keys (redis-benchmark's random key space)", 'key space (-r)'),
  ),
  tests: text(
    '-t, --tests <list>',
    'comma-separated tests: ping_inline,ping_mbulk,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange,lrange_100,...,mset,xadd',
  ),
  quiet: flag('-q, --quiet', 'ops/s and p50 only'),
  csv: flag('--csv', "print redis-benchmark's CSV format"),
  json: json('print the whole result as JSON on stdout'),
  out: text(
    '--out <file>',
    'write the signed result (an envelope: verify it with redis-benchdb verify FILE)',
  ),
  trials: int(
    '--trials <n>',
    'run each cell this many times (the suite profile sets it; default 1 for -t)',
    'trials (--trials)',
    { max: 1000 },
  ),
  threads: cell(
    'threads',
    int('--threads <n>', 'worker threads sharing the connections', 'threads', { default: d.threads }),
  ),
  duration: cell(
    'durationSec',
    num('--duration <seconds>', 'run each test this long instead of -n requests', 'duration (--duration)'),
  ),
  warmup: cell(
    'warmupSec',
    num('--warmup <seconds>', 'load before measuring, not recorded', 'warm-up (--warmup)'),
  ),
  timeout: num(
    '--timeout <seconds>',
    `end a cell as incomplete (exit 1) when the server sends no reply this long while requests are outstanding; the run then ends within ${STALL_END_MARGIN_SEC} s more (keys it could not remove are named, with the command that removes them); 0 waits forever`,
    'reply timeout (--timeout)',
    { default: DEFAULT_REPLY_TIMEOUT_SEC },
  ),
  allowErrors: flag(
    '--allow-errors',
    'exit 0 even when a cell is mostly error replies (the ERRORS warning stays in the result)',
  ),
  pipelineMode: cell(
    'pipelineMode',
    choice('--pipeline-mode <mode>', 'how -P is kept full', ['batch', 'window'], { default: d.pipelineMode }),
  ),
  keyPattern: cell(
    'keyPattern',
    choice(
      '--key-pattern <pattern>',
      'how keys are drawn from -r',
      ['uniform', 'sequential', 'zipf', 'gaussian'],
      { default: d.keyPattern },
    ),
  ),
  zipfExponent: cell(
    'zipfExponent',
    num('--zipf-exponent <s>', 'skew of --key-pattern zipf', 'zipf exponent', { default: d.zipfExponent }),
  ),
  seed: cell('seed', int('--seed <n>', 'seed of every random choice', 'seed', { default: d.seed, min: 0 })),
  rate: cell(
    'rateOpsPerSec',
    num(
      '--rate <ops>',
      'open loop: send this many ops/s in total, latency from the intended send time (each thread polls for the last 2 ms before a send, up to a CPU core each)',
      'rate (--rate)',
    ),
  ),
  arrival: cell(
    'arrival',
    choice('--arrival <kind>', 'open-loop arrivals', ['constant', 'poisson'], { default: d.arrival }),
  ),
  slo: text(
    '--slo <objectives>',
    "find the highest rate at which every objective holds and the server keeps up, e.g. 'p99<=1ms' or 'p99<=1ms,p99.9<=5ms' (units us, ms)",
  ),
  sloBudget: num('--slo-budget <seconds>', 'time bound of each --slo search', 'SLO budget (--slo-budget)', {
    default: DEFAULT_SLO_BUDGET_SEC,
  }),
  ratio: custom('--ratio <set:get>', 'a mixed SET/GET workload in this ratio, e.g. 1:10', parseRatio),
  preload: cell('preload', flag('--preload', 'write every key of -r before a GET test so reads hit')),
  profile: text('--profile <name>', 'suite profile when no -t is given', { default: DEFAULT_PROFILE }),
  cluster: flag(
    '--cluster',
    "Redis Cluster: -h/-p name any node; the slots are read from it and each request goes to its slot's primary (MOVED and ASK are followed and counted)",
  ),
  launch: flag('--no-launch', 'never start a throwaway redis-server'),
  store: flag(
    '--no-store',
    'do not keep the result (a signed file in results/, and the local database when better-sqlite3 is installed)',
  ),
  db: database(),
  submit: flag(
    '--submit',
    'post the signed result to the ingest service; kept in the spool when none is named (exit 0) or it cannot be reached (exit 1)',
  ),
  memoryBudget: custom(
    '--memory-budget <size>',
    'the most memory redis-benchdb may use (default 1GiB): a plan whose buffers would need more is refused before it connects (e.g. 4GiB to allow more)',
    parseBytes,
  ),
  serverMemoryOk: flag(
    '--server-memory-ok',
    "run even when the keys it writes (-r, --preload) look too many for the server's maxmemory or its host's memory",
  ),
  server: ingestServer(' for --submit'),
  cloudMetadata: CLOUD_METADATA,
  serverBin: repeatable(
    '--server-bin <path>',
    'start this server binary and run against it; repeat to compare',
  ),
  serverConfig: repeatable(
    '--server-config <line>',
    "a config line for every launched server, e.g. 'io-threads 4'",
  ),
  serverConfigVariant: repeatable(
    '--server-config-variant <lines>',
    "one variant of the launched servers' config ('io-threads 2; io-threads-do-reads yes'); repeat",
  ),
  persistence: text(
    '--persistence <list>',
    'launched servers: none, aof-always, aof-everysec, aof-no (comma-separated)',
  ),
  transport: text('--transport <list>', 'launched servers: tcp, unix or tcp,unix'),
  serverCpus: text('--server-cpus <list>', 'pin launched servers to these CPUs (taskset), e.g. 1 or 2-3'),
  clientCpus: text('--client-cpus <list>', 'pin redis-benchdb itself to these CPUs (taskset), e.g. 0'),
  ...TARGET_OPTIONS,
};

export type RunFlags = FlagsOf<typeof RUN_OPTIONS>;

const RUN_HELP = `
What it does:
  Drives a Redis-compatible server (Redis, Valkey, KeyDB, Dragonfly) with a lean RESP client that
  keeps up with redis-benchmark, times every request in an HDR histogram, checks its own count
  against the server's INFO commandstats, and says when the client rather than the server was the
  limit. Every key it writes lives under a per-run prefix and is removed at the end (on Ctrl-C,
  SIGTERM and SIGHUP too; \`redis-benchdb cleanup\` removes what a killed run left); it never runs
  FLUSHALL or FLUSHDB.

  With no -t and no command it runs the standard-v1 suite (--profile quick).
  --profile full ends with GET and SET searched as --slo 'p99<=1ms' would.
  If you name no server and nothing answers on 127.0.0.1:6379, it starts a throwaway redis-server.

  Each signed result is kept as a file in ~/.local/share/redis-benchdb/results/ (beside --db;
  XDG_DATA_HOME is respected): \`redis-benchdb view ID\` writes it as one HTML page. With --submit
  and no service named (there is no public one yet) the result waits in the spool beside it, the
  run still exits 0, and it prints the command that sends it later (submit --pending --server URL).

Examples:
  redis-benchdb run                                   the quick suite against the local server
  redis-benchdb run -t set,get -n 1000000 -P 16 -q    like redis-benchmark -t set,get -P 16 -q
  redis-benchdb run -t get -P 16 --pipeline-mode window --duration 10 -r 100000 --preload
  redis-benchdb run --ratio 1:10 -r 1000000 --key-pattern zipf --duration 30
  redis-benchdb run -t get --rate 50000 --arrival poisson --duration 10   (open loop)
  redis-benchdb run -t get -r 100000 --preload --slo 'p99<=1ms'   (max ops/s at a latency objective)
  redis-benchdb run -n 100000 -r 1000 HSET user:__rand_int__ name __data__
  redis-benchdb run -p 7000 --cluster -t set,get -r 1000000 --preload   (a cluster, from any node)
  redis-benchdb run -t set,get --csv > results.csv
  redis-benchdb run -t set,get --json | jq '.cells[] | {label, opsPerSec}'

Throughput at a latency objective (--slo):
  A search for the highest offered rate at which every objective holds (latency timed from the
  intended send, so queueing counts) and the server keeps up (at least 99% of the requests the rate
  made due were answered: no queue left growing). A 1 s closed-loop probe, then open-loop steps:
  doubling from a quarter of the probe's rate until one fails (or dividing by 4 while the first
  fails), then bisection of [last pass, first fail] to 5%, then both ends run again: the answer
  must pass every time and the upper end fail every time, and a rate that went both ways widens
  the bracket (one step near capacity can pass or fail by chance) and bisection goes on below
  it. Each step has 0.5 s of warm-up and lasts long enough for 100 replies beyond the strictest
  percentile (p99: 10,000 replies), from 1 s to a tenth of the budget. The steps end within
  --slo-budget (60 s), counted from the probe's end (a --preload comes before the probe). One line
  per step goes to stderr; the answer reads "max 84,000 ops/s at p99<=1ms (bracket 80,000-88,000)". The result keeps every step (rates,
  percentiles, histogram); a search without an answer says why: the client was the limit, the
  objective failed even at the lowest rate, the server was disturbed, or the budget ran out.
  It works with -c, -P, -d, -r, --ratio and custom commands; not with --rate, -n, --duration,
  --warmup or --server-bin. --trials N runs N searches.

Pipelining:
  batch   send P requests, wait for all P replies, repeat (redis-benchmark -P)
  window  keep P requests in flight, refill as each reply arrives (memtier_benchmark --pipeline)

Redis Cluster (--cluster):
  -h/-p name any node. The slots are read from it (CLUSTER SHARDS, else CLUSTER SLOTS) before each
  cell, and every connection (-c) keeps one socket per primary: each request goes to the primary of
  its key's slot. -P is each node socket's depth: every node socket is a pipeline of its own, so
  each primary sees what one server sees under the same -c and -P. MOVED (the map is updated)
  and ASK (sent again after ASKING) are followed and counted per cell; a redirected request is
  timed from its first send to its final reply. MSET draws its ten keys from one slot. Commandstats
  are summed over the primaries, keys are removed from every primary, and the result records the
  topology (target.cluster): each node's id, role, address, slot ranges and version.

Launching servers to compare (--server-bin):
  Each --server-bin starts that redis-server or valkey-server on a free 127.0.0.1 port, in its own
  temp dir, with loglevel notice and no persistence unless --persistence asks for it. All of them
  run at once and the tests are interleaved: each cell runs round by round, one trial against every
  server per round in a random order (use --trials N for N rounds), so whatever else loads the
  machine weighs on each alike. Every server is stopped at the end (on Ctrl-C and errors too). One
  result per launch; all results of one command share a run group (runGroup, with the order of
  every round in runGroup.schedule), which the site shows side by side. The closing table gives each
  server's ratio to the first as the geometric mean of the per-round ratios, with its 95% interval.
  The launches are the cross product of the axes, the last varying fastest:
    --server-bin PATH              repeat for several binaries                       (axis: server)
    --server-config-variant LINES  repeat; one variant each, lines split by ';'      (axis: serverConfig)
    --persistence LIST             none, aof-always, aof-everysec, aof-no            (axis: persistence)
    --transport LIST               tcp, unix (a socket in the server's temp dir)     (axis: transport)
  --server-config LINE (repeatable) goes to every launch, before the variant's lines.
  --server-cpus / --client-cpus pin with taskset; when it is missing or fails the run goes on
  unpinned, says so, and the result carries a NOT_PINNED warning.
  With several launches --out r.json writes r.0.json, r.1.json ... and --json prints one
  document per line. At most 32 launches.

  redis-benchdb run --server-bin redis-server --server-config-variant 'io-threads 1' \\
    --server-config-variant 'io-threads 2' -t set,get -n 100000     io-threads 1 against 2
  redis-benchdb run --server-bin redis-server --transport tcp,unix -t get -P 16
  redis-benchdb run --server-bin /opt/redis-6.2/redis-server --server-bin redis-server \\
    --server-cpus 1 --client-cpus 0                                  two versions, pinned
  redis-benchdb run --server-bin redis-server --persistence none,aof-everysec,aof-always -t set
`;

export default defineCommand({
  name: 'run',
  description: "run a benchmark; redis-benchmark's flags keep their meaning",
  argument: {
    usage: '[command...]',
    help: 'a custom command instead of -t; __key__ or __rand_int__ is a key, __data__ a value',
  },
  options: RUN_OPTIONS,
  helpAfter: RUN_HELP,
  /**
   * Plan once; --server-bin runs the plan on a group of launched servers, else on one server. Each
   * is imported only when it runs, so that `run --help` (and the program's --help, which loads every
   * command's definition) loads only what the definitions need: no engine, no probe.
   */
  async run(flags, command) {
    await checkRunFlags(flags, command);
    const plan = await parseRunFlags(flags, command); // a bad -t or --slo must fail before any server starts
    if (flags.serverBin) return (await import('../run/launched-group.js')).runLaunchedGroup(plan, flags);
    return (await import('../run/single-run.js')).runOnce(plan, flags);
  },
});

/** What to run against what (run/plan.ts), from these flags: the tests parse command lines with it. */
export function parseRunFlags(f: RunFlags, command: string[]): Promise<RunPlan> {
  return planRun(f, command, cellOverrides(RUN_OPTIONS, f));
}
