// Regenerates data/imported/ from the Redis documents in ../shared/reference (beside the repo):
// every figure comes from an excerpt that must appear word for word in its document.
//   pnpm -s build && node scripts/import-published.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { importPublishedRedisBenchmark, importPublishedTable, validateImported } = await import(
  '@redis-benchdb/result'
);
const OUT = fileURLToPath(new URL('../data/imported/', import.meta.url));

const REF = fileURLToPath(new URL('../../shared/reference/', import.meta.url));
const F000 = '000_bd3414b55898af29.txt';
const F003 = '003_8d0f810f353bdf8d.txt';
const docs = { [F000]: readFileSync(REF + F000, 'utf8'), [F003]: readFileSync(REF + F003, 'utf8') };
const lines = (f, a, b) =>
  docs[f]
    .split('\n')
    .slice(a - 1, b)
    .join('\n');
const importedAt = '2026-11-21T12:00:00Z';
const T000 = 'How fast is Redis? (redis.io/topics/benchmarks)';
const URL000 = 'http://redis.io/topics/benchmarks';
const T003 = 'Benchmarks: How Fast is Redis? (the old Redis Documentation, Benchmarks.html)';
const unknownMachine = {
  description: null,
  cpuModel: null,
  cores: null,
  virtualization: null,
  provider: null,
  instanceType: null,
};
const redis = (version) => ({ product: 'redis', version });
const FROM000 = `Source file: reference/${F000}, an English copy of the page (the URL is the one reference/001_c863cb5f54761beb.txt, a Chinese translation of the same page, names as its original; the translation's figures were not imported again).`;
const VIRT =
  'Section "Benchmark results on different virtualized and bare-metal servers." compares two machines: a Linode 2048 instance (a virtual machine) and this one';
const SECTION_FACTS =
  'The 50 connections and the pipeline depth come from the section\'s own statements ("The test was done with 50 simultaneous clients performing 2 million requests.", "Test was executed with and without pipelining (16 commands pipeline).") and the heading of the run;';
const BULLETS_2614 = lines(F000, 127, 132);

const runs = [
  {
    file: 'redis-io-benchmarks-subset-set-lpush.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Running only a subset of the tests',
    excerpts: [lines(F000, 39, 41)],
    machine: unknownMachine,
    server: redis(null),
    notes: `An example of the -t option: the page does not say which machine or Redis version it ran on. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-script-load.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Running only a subset of the tests',
    excerpts: [lines(F000, 46, 47)],
    machine: unknownMachine,
    server: redis(null),
    notes: `An example of benchmarking a command given on the command line: the page does not say which machine or Redis version it ran on. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-keyspace-set.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Selecting the size of the key space',
    excerpts: [lines(F000, 56, 66)],
    machine: unknownMachine,
    server: redis(null),
    notes: `The page does not say which machine or Redis version this ran on. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-macbook-air-p16.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Using pipelining',
    excerpts: [lines(F000, 76, 79)],
    machine: { ...unknownMachine, description: 'Macbook air 11"' },
    server: redis(null),
    notes: `The page does not say which Redis version this ran on. ${FROM000}`,
  },
  ...[
    ['redis-io-benchmarks-xeon-e5520-p16.json', 133, 138, 16, 'E5520'],
    ['redis-io-benchmarks-xeon-e5520-no-pipeline.json', 139, 144, 1, 'E5520'],
    ['redis-io-benchmarks-linode-2048-p16.json', 145, 150, 16, 'Linode'],
    ['redis-io-benchmarks-linode-2048-no-pipeline.json', 151, 156, 1, 'Linode'],
  ].map(([file, a, b, depth, box]) => ({
    file,
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Benchmark results on different virtualized and bare-metal servers.',
    excerpts: [BULLETS_2614, lines(F000, a, b)],
    machine:
      box === 'E5520'
        ? {
            ...unknownMachine,
            description: 'Intel(R) Xeon(R) CPU E5520 @ 2.27GHz',
            cpuModel: 'Intel(R) Xeon(R) CPU E5520 @ 2.27GHz',
            virtualization: 'bare-metal',
          }
        : {
            ...unknownMachine,
            description: 'Linode 2048 instance',
            virtualization: 'vm',
            provider: 'Linode',
            instanceType: 'Linode 2048',
          },
    // "Test was executed using the loopback interface.": TCP over the loopback.
    server: { ...redis('2.6.14'), settings: { transport: 'tcp' } },
    workload: { connections: 50, pipelineDepth: depth },
    notes: `${SECTION_FACTS} transport tcp from "Test was executed using the loopback interface."; ${depth === 1 ? 'the heading says "without pipelining": one request in flight per connection.' : 'the command line has -P 16.'} ${box === 'E5520' ? `${VIRT}, so this is the bare-metal server.` : 'virtualization: a Linode instance is a virtual machine (the Redis latency documentation calls it "Linux VM on Linode (Xen)").'} ${FROM000}`,
  })),
  {
    file: 'redis-docs-old-benchmarks-xeon-x3320.json',
    doc: F003,
    title: T003,
    url: null,
    section: 'Latency percentiles',
    excerpts: [lines(F003, 17, 22), lines(F003, 31, 105)],
    machine: {
      ...unknownMachine,
      description: "The Linux box is running Linux 2.6, it's Xeon X3320 2.5Ghz.",
      cpuModel: 'Xeon X3320',
    },
    server: redis(null),
    workload: { valueSizeBytes: null },
    notes: `The value size is left null because the page contradicts itself: its prose says "The value SET and GET is a 256 bytes string" while the tool's output says "3 bytes payload". The page names no Redis version. Source file: reference/${F003}, an older edition of the same page; redis.io/topics/benchmarks (reference/${F000}) reprints this output under "More detailed tests without pipelining", in a section that says "Redis 2.6.14 is used for all the tests", but the output is older than Redis 2.6, so that version is not taken; it was imported once, from here, where the machine is named.`,
  },
  {
    file: 'redis-io-benchmarks-core-duo-t5500.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'More detailed tests without pipelining',
    excerpts: [lines(F000, 224, 230)],
    machine: {
      ...unknownMachine,
      description: 'a low profile box like Intel core duo T5500 clocked at 1.66 GHz running Linux 2.6',
      cpuModel: 'Intel core duo T5500',
    },
    server: redis(null),
    notes: `No Redis version: the section's "Redis 2.6.14 is used for all the tests" does not reach this run, which the older edition of the page (reference/${F003}) already printed before Redis 2.6 existed. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-xeon-l5420.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'More detailed tests without pipelining',
    excerpts: [lines(F000, 231, 238)],
    machine: {
      ...unknownMachine,
      description: 'a 64-bit box, a Xeon L5420 clocked at 2.5 GHz',
      cpuModel: 'Xeon L5420',
    },
    server: redis(null),
    notes: `No Redis version: the section's "Redis 2.6.14 is used for all the tests" does not reach this run, which the older edition of the page (reference/${F003}) already printed before Redis 2.6 existed. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-xeon-x5670-unix-socket.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Example of benchmark results with optimized high-end server hardware',
    excerpts: [lines(F000, 240, 260)],
    machine: {
      ...unknownMachine,
      description:
        'The Linux box is running SLES10 SP3 2.6.16.60-0.54.5-smp, CPU is 2 x Intel X5670 @ 2.93 GHz.',
      cpuModel: 'Intel X5670 @ 2.93 GHz',
    },
    server: { ...redis('2.4.2'), settings: { transport: 'unix' } },
    notes: `Over a unix domain socket ("Using a unix domain socket:", -s /tmp/redis.sock: transport unix), client pinned with numactl -C 6 on the server's CPU. "Default number of connections": the page gives no number, so connections is null. ${FROM000}`,
  },
  {
    file: 'redis-io-benchmarks-xeon-x5670-tcp.json',
    doc: F000,
    title: T000,
    url: URL000,
    section: 'Example of benchmark results with optimized high-end server hardware',
    excerpts: [lines(F000, 240, 243), lines(F000, 261, 276)],
    machine: {
      ...unknownMachine,
      description:
        'The Linux box is running SLES10 SP3 2.6.16.60-0.54.5-smp, CPU is 2 x Intel X5670 @ 2.93 GHz.',
      cpuModel: 'Intel X5670 @ 2.93 GHz',
    },
    server: { ...redis('2.4.2'), settings: { transport: 'tcp' } },
    notes: `Over the TCP loopback ("Using the TCP loopback:": transport tcp), client pinned with numactl -C 6 on the server's CPU. "Default number of connections": the page gives no number, so connections is null. The copy of the page ends after the "LRANGE (first 450 elements)" line; the Chinese translation (reference/001_c863cb5f54761beb.txt) also prints "LRANGE (first 600 elements): 5296.61 requests per second", which is not imported because the English copy does not print it. ${FROM000}`,
  },
];

for (const r of runs) {
  const doc = importPublishedRedisBenchmark({
    document: docs[r.doc],
    excerpts: r.excerpts,
    title: r.title,
    section: r.section,
    url: r.url,
    importedAt,
    machine: r.machine,
    server: r.server,
    workload: r.workload,
    notes: r.notes,
  });
  const v = validateImported(doc);
  if (!v.ok) throw new Error(`${r.file}: ${JSON.stringify(v.errors)}`);
  writeFileSync(`${OUT}${r.file}`, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(r.file, doc.cells.length, doc.cells.map((c) => `${c.label}=${c.opsPerSec}`).join(' '));
}

// valkey-io/valkey#1026: 8.0.0-rc2 against 7.2.6, single-threaded, as shared/reference re-tabulates
// it (a Markdown table of both versions side by side). One file per version, each parsed from the
// same table excerpt by its own columns (`<version> rps`, `<version> avg ms`).
const FV = 'published-valkey-8.0-vs-7.2-single-thread.md';
const valkeyDoc = readFileSync(REF + FV, 'utf8');
const valkeyTable = valkeyDoc
  .split('\n')
  .filter((l) => l.startsWith('|'))
  .join('\n');
const VALKEY_FACTS =
  'The setup comes from the reference file\'s own words ("AWS r6g.metal (ARM, Graviton2), valkey-benchmark and the server on the same host, io-threads 1 (single thread), 50 clients, three runs"): connections is 50; io-threads 1 is a server setting, so it is server.settings.ioThreads and not in the workload; persistence and the transport are not stated (left out of server.settings); the requests per run and the keyspace are not stated (null). The source gives no interval, only one figure per version and row. Labels name a row by its command, pipeline and value columns. The file parsed is the re-tabulation in shared/reference (its sha256 is contentSha256), which lists only the rows that could be read; the issue has more (128- and 1024-byte rows).';
const valkeyMachine = {
  description: 'AWS r6g.metal (ARM, Graviton2)',
  cpuModel: 'Graviton2',
  cores: null,
  virtualization: 'bare-metal',
  provider: 'AWS',
  instanceType: 'r6g.metal',
};
for (const version of ['7.2.6', '8.0.0-rc2']) {
  const file = `valkey-1026-r6g-metal-valkey-${version}.json`;
  const doc = importPublishedTable({
    document: valkeyDoc,
    table: valkeyTable,
    title: 'Benchmark results for 8.0.0-rc2 vs 7.2.6 using single thread (valkey-io/valkey issue #1026)',
    section: null,
    url: 'https://github.com/valkey-io/valkey/issues/1026',
    publishedAt: null,
    importedAt: '2026-11-28T12:00:00Z',
    machine: valkeyMachine,
    // "io-threads 1 (single thread)": the one server setting the issue states.
    server: { product: 'valkey', version, settings: { ioThreads: 1 } },
    tool: { name: 'valkey-benchmark', version: null, commandLine: null },
    workload: { connections: 50 },
    notes: `Valkey ${version}'s columns of a side-by-side table. ${VALKEY_FACTS} No publication date: the reference file says only that a Valkey maintainer opened the issue before the 8.0 release.`,
  });
  const v = validateImported(doc);
  if (!v.ok) throw new Error(`${file}: ${JSON.stringify(v.errors)}`);
  writeFileSync(`${OUT}${file}`, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(file, doc.cells.length, doc.cells.map((c) => `${c.label}=${c.opsPerSec}`).join(' '));
}
