import { Command, Option } from 'commander';
import type { CleanupFlags } from './commands/cleanup.js';
import type { ImportFlags } from './commands/import.js';
import type { SubmitFlags } from './commands/submit.js';
import { CliError, EXIT_USAGE } from './errors.js';
import type { RunFlags } from './run/parse-options.js';
import { VERSION } from './version.js';

const RUN_EXAMPLES = `
What it does:
  Drives a Redis-compatible server (Redis, Valkey, KeyDB, Dragonfly) with a lean RESP client that
  keeps up with redis-benchmark, times every request in an HDR histogram, checks its own count
  against the server's INFO commandstats, and says when the client rather than the server was the
  limit. Every key it writes lives under a per-run prefix and is removed at the end (on Ctrl-C,
  SIGTERM and SIGHUP too; \`redis-benchdb cleanup\` removes what a killed run left); it never runs
  FLUSHALL or FLUSHDB.

  With no -t and no command it runs the standard-v1 suite (--profile quick, about two minutes).
  If you name no server and nothing answers on 127.0.0.1:6379, it starts a throwaway redis-server.

Examples:
  redis-benchdb run                                   the quick suite against the local server
  redis-benchdb run -t set,get -n 1000000 -P 16 -q    like redis-benchmark -t set,get -P 16 -q
  redis-benchdb run -t get -P 16 --pipeline-mode window --duration 10 -r 100000 --preload
  redis-benchdb run --ratio 1:10 -r 1000000 --key-pattern zipf --duration 30
  redis-benchdb run -t get --rate 50000 --arrival poisson --duration 10   (open loop)
  redis-benchdb run -n 100000 -r 1000 HSET user:__rand_int__ name __data__
  redis-benchdb run -p 7000 --cluster -t set,get -r 1000000 --preload   (a cluster, from any node)
  redis-benchdb run -t set,get --csv > results.csv
  redis-benchdb run -t set,get --json | jq '.cells[] | {label, opsPerSec}'

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

  redis-benchdb run --server-bin redis-server --server-config-variant 'io-threads 1' \
    --server-config-variant 'io-threads 2' -t set,get -n 100000     io-threads 1 against 2
  redis-benchdb run --server-bin redis-server --transport tcp,unix -t get -P 16
  redis-benchdb run --server-bin /opt/redis-6.2/redis-server --server-bin redis-server \
    --server-cpus 1 --client-cpus 0                                  two versions, pinned
  redis-benchdb run --server-bin redis-server --persistence none,aof-everysec,aof-always -t set
`;

export function buildProgram(
  run: (flags: RunFlags, command: string[]) => Promise<number>,
  others: OtherCommands = LAZY_COMMANDS,
): Command {
  const program = new Command('redis-benchdb')
    .description('Benchmark Redis-compatible servers and record results that can be compared and trusted.')
    .version(VERSION, '-v, --version')
    // -h is redis-benchmark's host flag; help is --help only.
    .helpOption('--help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (s, write) => write(s) })
    .exitOverride();

  const runCmd = program
    .command('run')
    .description("run a benchmark; redis-benchmark's flags keep their meaning")
    .helpOption('--help', 'show help')
    .argument(
      '[command...]',
      'a custom command instead of -t; __key__ or __rand_int__ is a key, __data__ a value',
    )
    .option('-c, --clients <n>', 'parallel connections', '50')
    .option('-n, --requests <n>', 'total requests per test', '100000')
    .option('-d, --datasize <bytes>', 'value size: 3, 4k, 64KiB, or a range 16-1024', '3')
    .option('-P, --pipeline <n>', 'requests in flight per connection', '1')
    .option('-r, --keyspacelen <n>', "distinct keys (redis-benchmark's random key space)")
    .option(
      '-t, --tests <list>',
      'comma-separated tests: ping_inline,ping_mbulk,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange,lrange_100,...,mset,xadd',
    )
    .option('-q, --quiet', 'ops/s and p50 only')
    .option('--csv', "print redis-benchmark's CSV format")
    .option('--json', 'print the whole result as JSON on stdout')
    .option('--out <file>', 'write the signed result (an envelope: verify it with redis-benchdb verify FILE)')
    .option('--trials <n>', 'run each cell this many times (the suite profile sets it; default 1 for -t)')
    .option('--threads <n>', 'worker threads sharing the connections', '1')
    .option('--duration <seconds>', 'run each test this long instead of -n requests')
    .option('--warmup <seconds>', 'load before measuring, not recorded')
    .option(
      '--timeout <seconds>',
      'end a cell as incomplete (exit 1) when the server sends no reply this long while requests are outstanding; 0 waits forever',
      '10',
    )
    .option(
      '--allow-errors',
      'exit 0 even when a cell is mostly error replies (the ERRORS warning stays in the result)',
    )
    .addOption(
      new Option('--pipeline-mode <mode>', 'how -P is kept full')
        .choices(['batch', 'window'])
        .default('batch'),
    )
    .addOption(
      new Option('--key-pattern <pattern>', 'how keys are drawn from -r')
        .choices(['uniform', 'sequential', 'zipf', 'gaussian'])
        .default('uniform'),
    )
    .option('--zipf-exponent <s>', 'skew of --key-pattern zipf', '0.99')
    .option('--seed <n>', 'seed of every random choice', '1')
    .option('--rate <ops>', 'open loop: send this many ops/s in total, latency from the intended send time')
    .addOption(
      new Option('--arrival <kind>', 'open-loop arrivals')
        .choices(['constant', 'poisson'])
        .default('constant'),
    )
    .option('--ratio <set:get>', 'a mixed SET/GET workload in this ratio, e.g. 1:10')
    .option('--preload', 'write every key of -r before a GET test so reads hit')
    .option('--profile <name>', 'suite profile when no -t is given', 'quick')
    .option(
      '--cluster',
      "Redis Cluster: -h/-p name any node; the slots are read from it and each request goes to its slot's primary (MOVED and ASK are followed and counted)",
    )
    .option('--no-launch', 'never start a throwaway redis-server')
    .option('--no-store', 'do not keep the result in the local database')
    .option(
      '--db <path>',
      'the local SQLite database (default: $REDIS_BENCHDB_DB or ~/.local/share/redis-benchdb/benchdb.sqlite)',
    )
    .option(
      '--submit',
      'post the signed result to the ingest service (kept in a spool if it cannot be reached)',
    )
    .option(
      '--server <url>',
      'the ingest service for --submit (default: $REDIS_BENCHDB_SERVER, or "server" in config.json)',
    )
    .option(
      '--cloud-metadata',
      "ask the cloud's metadata service (1 s limit) for the instance type; off by default",
    )
    .option('--server-bin <path>', 'start this server binary and run against it; repeat to compare', collect)
    .option('--server-config <line>', "a config line for every launched server, e.g. 'io-threads 4'", collect)
    .option(
      '--server-config-variant <lines>',
      "one variant of the launched servers' config ('io-threads 2; io-threads-do-reads yes'); repeat",
      collect,
    )
    .option(
      '--persistence <list>',
      'launched servers: none, aof-always, aof-everysec, aof-no (comma-separated)',
    )
    .option('--transport <list>', 'launched servers: tcp, unix or tcp,unix')
    .option('--server-cpus <list>', 'pin launched servers to these CPUs (taskset), e.g. 1 or 2-3')
    .option('--client-cpus <list>', 'pin redis-benchdb itself to these CPUs (taskset), e.g. 0')
    .addHelpText('after', RUN_EXAMPLES)
    .action(async (command: string[], opts: Record<string, unknown>, cmd: Command) => {
      process.exitCode = await run(typedFlags(opts, cmd) as RunFlags, command);
    });

  addTargetOptions(runCmd);

  const sysinfo = program
    .command('sysinfo')
    .description('describe this machine, the server and the link between them, as a result records them')
    .helpOption('--help', 'show help')
    .option('--json', 'print the environment block as JSON')
    .option('--no-server', 'describe only this machine')
    .option(
      '--cloud-metadata',
      "ask the cloud's metadata service (1 s limit) for the instance type; off by default",
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      process.exitCode = await others.sysinfo(typedFlags(opts, cmd) as SysinfoFlags);
    });
  addTargetOptions(sysinfo);

  const cleanup = program
    .command('cleanup')
    .description(
      'remove keys that killed runs left: only prefixes a run marked as its own (rbdb:<id>:__run__)',
    )
    .helpOption('--help', 'show help')
    .option('--prefix <prefix>', 'only this run prefix, e.g. rbdb:3f9c1a: (as the run printed it)')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--yes', 'remove without asking (needed when not on a terminal)')
    .option('--force', 'also remove the keys of runs that still look alive')
    .option('--cluster', 'Redis Cluster: -h/-p name any node; every primary is scanned')
    .addHelpText('after', '\nThe password: -a, or $REDISCLI_AUTH (as redis-cli reads it).\n')
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      process.exitCode = await others.cleanup(typedFlags(opts, cmd) as CleanupFlags);
    });
  addTargetOptions(cleanup);

  program
    .command('import')
    .description(
      'store redis-benchmark output (text, -q or --csv) or memtier_benchmark JSON as imported results',
    )
    .helpOption('--help', 'show help')
    .argument('<file...>', 'files to import')
    .option(
      '--db <path>',
      'the SQLite database (default: $REDIS_BENCHDB_DB or ~/.local/share/redis-benchdb/benchdb.sqlite)',
    )
    .option('--format <format>', 'auto, redis-benchmark, redis-benchmark-csv, memtier or imported', 'auto')
    .option('--title <text>', 'the source to name (default: the file name)')
    .option('--url <url>', 'where the output was published, if it was')
    .option('--json', 'print each stored id as JSON')
    .action(async (files: string[], opts: Record<string, unknown>) => {
      process.exitCode = await others.import(files, opts as ImportFlags);
    });

  program
    .command('export')
    .description('print every listed result of the database, one JSON document per line (open data)')
    .helpOption('--help', 'show help')
    .option(
      '--db <path>',
      'the SQLite database (default: $REDIS_BENCHDB_DB or ~/.local/share/redis-benchdb/benchdb.sqlite)',
    )
    .option('--jsonl', 'one result per line: signed envelopes and imported documents')
    .action(async (opts: { db?: string; jsonl?: boolean }) => {
      process.exitCode = await others.export(opts);
    });

  program
    .command('submit')
    .description('post signed results (run --out files) to the ingest service; --pending: what waits')
    .helpOption('--help', 'show help')
    .argument('[file...]', 'signed result files')
    .option('--server <url>', 'the ingest service (default: $REDIS_BENCHDB_SERVER, or config.json)')
    .option('--pending', 'send the results waiting in the spool, each to the service it was meant for')
    .option('--db <path>', 'the local database whose spool (beside it) to use (default: as run)')
    .option('--json', 'print the outcome of each file as JSON')
    .action(async (files: string[], opts: SubmitFlags) => {
      process.exitCode = await others.submit(files, opts);
    });

  program
    .command('retract')
    .description('unlist one of your own results on the ingest service (signed with your key)')
    .helpOption('--help', 'show help')
    .argument('<id>', 'the result id run or submit printed')
    .option(
      '--server <url>',
      'the ingest service (default: $REDIS_BENCHDB_SERVER, or "server" in config.json)',
    )
    .action(async (id: string, opts: { server?: string }) => {
      process.exitCode = await others.retract(id, opts);
    });

  program
    .command('keygen')
    .description(
      'create the Ed25519 key that signs your results (stored with mode 0600 in your config directory)',
    )
    .helpOption('--help', 'show help')
    .option('--force', 'replace an existing key')
    .option('--json', 'print the key path and public fingerprint as JSON')
    .action(async (opts: { force?: boolean; json?: boolean }) => {
      process.exitCode = await others.keygen(opts);
    });

  program
    .command('verify')
    .description('check the schema and signature of signed result files; exits non-zero if any fails')
    .helpOption('--help', 'show help')
    .argument('<file...>', 'signed result files written by run --out')
    .option('--json', 'print the outcome of each file as JSON')
    .action(async (files: string[], opts: { json?: boolean }) => {
      process.exitCode = await others.verify(files, opts);
    });

  return program;
}

export interface SysinfoFlags
  extends Pick<
    RunFlags,
    | 'host'
    | 'port'
    | 'socket'
    | 'password'
    | 'user'
    | 'uri'
    | 'dbnum'
    | 'tls'
    | 'cacert'
    | 'cert'
    | 'key'
    | 'sni'
    | 'insecure'
    | 'resp3'
    | 'cloudMetadata'
  > {
  json?: boolean;
  /** false with --no-server */
  server?: boolean;
}

export interface OtherCommands {
  import(files: string[], flags: ImportFlags): Promise<number>;
  export(flags: { db?: string; jsonl?: boolean }): Promise<number>;
  submit(files: string[], flags: SubmitFlags): Promise<number>;
  retract(id: string, flags: { server?: string }): Promise<number>;
  sysinfo(flags: SysinfoFlags): Promise<number>;
  keygen(flags: { force?: boolean; json?: boolean }): Promise<number>;
  cleanup(flags: CleanupFlags): Promise<number>;
  verify(files: string[], flags: { json?: boolean }): Promise<number>;
}

/** Commands are loaded when used, so `--help` and `run` start without loading the others. */
const LAZY_COMMANDS: OtherCommands = {
  import: async (files, f) => (await import('./commands/import.js')).importCommand(files, f),
  export: async (f) => (await import('./commands/export.js')).exportCommand(f),
  submit: async (files, f) => (await import('./commands/submit.js')).submitCommand(files, f),
  retract: async (id, f) => (await import('./commands/retract.js')).retractCommand(id, f),
  sysinfo: async (f) => (await import('./commands/sysinfo.js')).sysinfoCommand(f),
  keygen: async (f) => (await import('./commands/keygen.js')).keygenCommand(f),
  cleanup: async (f) => (await import('./commands/cleanup.js')).cleanupCommand(f),
  verify: async (files, f) => (await import('./commands/verify.js')).verifyCommand(files, f),
};

/** The server a command talks to, with redis-benchmark's flags. */
function addTargetOptions(cmd: Command): void {
  cmd
    .option('-h, --host <host>', 'server hostname', '127.0.0.1')
    .option('-p, --port <port>', 'server port', '6379')
    .option('-s, --socket <path>', 'server unix socket (overrides host and port)')
    .option('-a, --password <password>', 'password for AUTH')
    .option('--user <username>', 'ACL user (with -a)')
    .option('-u, --uri <uri>', 'server URI: redis[s]://[user[:password]@]host[:port][/db]')
    .option('--dbnum <db>', 'SELECT this database', '0')
    .option('--tls', 'connect with TLS')
    .option('--cacert <file>', 'CA certificate file for TLS')
    .option('--cert <file>', 'client certificate for TLS')
    .option('--key <file>', 'client private key for TLS')
    .option('--sni <name>', 'server name for TLS')
    .option('--insecure', 'do not verify the TLS certificate')
    .option('-3, --resp3', 'speak RESP3 (HELLO 3)');
}

/** A repeatable option's values, in the order given. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Only flags the user typed: commander's defaults are for display, the libraries have their own. */
function typedFlags(opts: Record<string, unknown>, cmd: Command): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) if (cmd.getOptionValueSource(k) !== 'default') flags[k] = v;
  return flags;
}

/** Turn a thrown error into a message and an exit code; commander's own errors are usage errors. */
export function exitCodeFor(err: unknown): { message: string | null; code: number } {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (err instanceof CliError) return { message: err.message, code: err.exitCode };
  if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
    const quiet =
      e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
    return { message: null, code: quiet ? 0 : EXIT_USAGE };
  }
  if (e.code === 'ERR_OPTIONS' || e.code === 'ERR_UNKNOWN_TEST' || e.code === 'ERR_KEY_PATTERN')
    return { message: e.message ?? String(err), code: EXIT_USAGE };
  if (typeof e.code === 'string' && e.code.startsWith('ERR_'))
    return { message: e.message ?? String(err), code: 1 };
  return {
    message: `unexpected failure: ${(err as Error)?.stack ?? String(err)}\nPlease report this with the command you ran.`,
    code: 1,
  };
}
