// The worst a 4 MiB submission can make the ingest service spend on histograms: time and memory.
//   pnpm bench:decode [--json]
// Each case runs in a child process of its own, so its peak RSS (getrusage maxrss) is its own; the
// figure printed is that peak minus the child's RSS just before the case (modules loaded, input built).
//   bomb     one histogram that is a deflate bomb as large as the body allows: ~3 GiB of zeros in 4 MiB
//   run2^33  one 64-character histogram declaring 2^33 empty buckets (issue 11, row 1)
//   widest   the most an honest-looking histogram can ask of the decoder: a count in each of its
//            23,552 buckets (decoded and summarised as ingest does, decodeCounts + summarizeCounts)
//   body     a whole signed result under 4 MiB through ingest() into a temp SQLite file: as many
//            trials as fit (1,000 a cell, the schema's limit), each with a widest histogram, so decoding
//            and the summary checks run per trial
// Times are the median of 5 runs (1 for body). Each case must end as expected, or the script fails.
// The histograms are written byte by byte as packages/testing/src/histograms.ts does.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

const BODY_LIMIT = 4 * 1024 * 1024;
const MAX_TRIALS = 1000;
const CASES = ['bomb', 'run2^33', 'widest', 'body'];
const { values: args } = parseArgs({
  options: { json: { type: 'boolean', default: false }, case: { type: 'string' } },
});

if (args.case) {
  process.stdout.write(`${JSON.stringify(await runCase(args.case))}\n`);
} else {
  const rows = CASES.map((name) =>
    JSON.parse(
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--case', name], { encoding: 'utf8' }),
    ),
  );
  const machine = `${os.cpus()[0]?.model ?? 'unknown'}, nproc ${os.availableParallelism()}, node ${process.version}`;
  if (args.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
  else {
    process.stdout.write(`machine: ${machine}\n`);
    for (const r of rows)
      process.stdout.write(
        `${r.name.padEnd(8)} ${String(r.inputBytes).padStart(8)} bytes in  ${r.ms.toFixed(2).padStart(9)} ms (CPU ${r.cpuMs.toFixed(2)} ms)  peak RSS +${r.peakMiB.toFixed(1)} MiB  ${r.outcome}\n`,
      );
  }
}

async function runCase(name) {
  const result = await import('@redis-benchdb/result');
  if (name === 'body') return bodyCase(result);
  const input =
    name === 'bomb'
      ? bomb(Math.floor(((BODY_LIMIT - 16 * 1024) * 3) / 4) * 1000) // ~1,000:1, trimmed below to fit
      : name === 'run2^33'
        ? craft([-(2 ** 33)])
        : craft(Array.from({ length: 23_552 }, (_, i) => 1 + (i % 100)));
  const fitted = name === 'bomb' ? fitBomb(input) : input;
  const times = [];
  const cpuTimes = [];
  let outcome = '';
  const before = rssMiB();
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    try {
      // What ingest's plausibility check does with each histogram.
      const s = result.summarizeCounts(result.decodeCounts(fitted));
      outcome = `decoded, ${s.count} values`;
    } catch (e) {
      if (!(e instanceof result.HistogramError)) throw e;
      outcome = `${e.code}`;
    }
    times.push(performance.now() - t);
    cpuTimes.push(cpuMs(cpu));
  }
  const expected = name === 'widest' ? /^decoded/ : /^HISTOGRAM_TOO_LARGE$/;
  if (!expected.test(outcome)) throw new Error(`${name}: ${outcome}`);
  return {
    name,
    inputBytes: fitted.length,
    ms: median(times),
    cpuMs: median(cpuTimes),
    peakMiB: peakMiB() - before,
    outcome,
  };
}

/** A signed result just under the body limit: one cell, as many trials as fit, each a widest histogram. */
async function bodyCase(result) {
  const db = await import('@redis-benchdb/db');
  const { readFileSync } = await import('node:fs');
  const doc = JSON.parse(
    readFileSync(new URL('../schemas/examples/valid/suite-run.json', import.meta.url), 'utf8'),
  );
  const cell = doc.cells[0];
  const h = result.createLatencyHistogram();
  for (let i = 0; i < 23_552; i++) {
    const v = valueAtIndex(i);
    if (v <= result.HIGHEST_TRACKABLE_US) h.recordValueWithCount(v, 1);
  }
  const histogram = result.encodeHistogram(h);
  const latencyUs = result.summarizeHistogram(h);
  const trial = { ...cell.trials[0], histogram, latencyUs, opsPerSec: 1 };
  const trialBytes = JSON.stringify(trial).length;
  const key = result.generateSigningKey();
  let n = Math.floor(BODY_LIMIT / trialBytes);
  let sent;
  do {
    n = Math.floor(n * 0.97);
    // The schema allows 1,000 trials a cell (the runner's --trials limit): as many full cells as fit.
    doc.cells = [];
    for (let left = n; left > 0; left -= MAX_TRIALS) {
      const k = Math.min(left, MAX_TRIALS);
      const trials = Array.from({ length: k }, () => ({ ...trial }));
      doc.cells.push({ ...cell, label: `${cell.label} ${doc.cells.length}`, trials, trialCount: k });
    }
    sent = JSON.stringify(result.signResult(doc, key.privateKeyPem));
  } while (sent.length > BODY_LIMIT);
  const dir = mkdtempSync(join(os.tmpdir(), 'rbdb-bench-decode-'));
  try {
    const bench = db.openDatabase(join(dir, 'benchdb.sqlite'));
    // Where a 4 MiB body's time goes: the signature and schema checks, and the plausibility checks
    // (histograms decoded and summarised), each on its own, then the whole of ingest().
    const cpu0 = process.cpuUsage();
    const verified = result.verifyEnvelopeText(sent);
    const verifyCpuMs = cpuMs(cpu0);
    const cpu1 = process.cpuUsage();
    result.checkPlausibility(verified.result, { now: new Date('2025-03-06T12:00:00Z') });
    const plausibilityCpuMs = cpuMs(cpu1);
    const before = rssMiB();
    const cpu2 = process.cpuUsage();
    const t = performance.now();
    let outcome;
    try {
      db.ingest(bench, sent, { now: new Date('2025-03-06T12:00:00Z') });
      outcome = 'stored';
    } catch (e) {
      outcome = `${e.code}: ${String(e.message).slice(0, 80)}`;
    }
    const ms = performance.now() - t;
    const ingestCpuMs = cpuMs(cpu2);
    bench.close();
    return {
      name: 'body',
      inputBytes: sent.length,
      ms,
      cpuMs: ingestCpuMs,
      peakMiB: peakMiB() - before,
      outcome: `${n} trials in ${doc.cells.length} cells, ${outcome}; CPU ms of its parts: verify ${verifyCpuMs.toFixed(0)}, plausibility ${plausibilityCpuMs.toFixed(0)}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The value HdrHistogram (3 digits, lowest 1) gives bucket index i. */
function valueAtIndex(i) {
  const half = 1024;
  let bucket = Math.floor(i / half) - 1;
  let sub = (i % half) + half;
  if (bucket < 0) {
    sub -= half;
    bucket = 0;
  }
  return sub * 2 ** bucket;
}

function craft(words) {
  const payload = Buffer.concat(words.map(zigzag));
  return wrap(deflateSync(Buffer.concat([header(payload.length), payload])));
}

function header(payloadLength) {
  const h = Buffer.alloc(40);
  h.writeInt32BE(0x1c849313, 0);
  h.writeInt32BE(Math.min(payloadLength, 0x7fffffff), 4);
  h.writeInt32BE(3, 12);
  h.writeBigInt64BE(1n, 16);
  h.writeBigInt64BE(3_600_000_000n, 24);
  h.writeDoubleBE(1, 32);
  return h;
}

/** zeroBytes of zeros after a header, from one compressed MiB repeated (see the test helper). */
function bomb(zeroBytes) {
  const sync = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const mib = 1024 * 1024;
  const block = deflateRawSync(Buffer.alloc(mib), sync);
  const parts = [Buffer.from([0x78, 0xda]), deflateRawSync(header(zeroBytes), sync)];
  for (let left = zeroBytes; left > 0; left -= mib)
    parts.push(left >= mib ? block : deflateRawSync(Buffer.alloc(left), sync));
  parts.push(deflateRawSync(Buffer.alloc(0)), Buffer.alloc(4)); // the Adler-32 is never reached: inflation stops first
  return wrap(Buffer.concat(parts));
}

/** Trim a bomb to the body limit (base64 grows it by 4/3), keeping whole deflate blocks. */
function fitBomb(encoded) {
  let zeros = Math.floor((BODY_LIMIT - 16 * 1024) * 0.75 * 1000);
  let out = encoded;
  while (out.length > BODY_LIMIT - 16 * 1024) {
    zeros = Math.floor(zeros * 0.97);
    out = bomb(zeros);
  }
  return out;
}

function wrap(deflated) {
  const outer = Buffer.alloc(8);
  outer.writeInt32BE(0x1c849314, 0);
  outer.writeInt32BE(deflated.length, 4);
  return Buffer.concat([outer, deflated]).toString('base64');
}

function zigzag(value) {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const out = [];
  for (let i = 0; i < 8; i++) {
    if (v < 128) return Buffer.from([...out, v]);
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  return Buffer.from([...out, v]);
}

/** CPU time (user + system) since `from`, in ms: on a shared machine, wall time also counts waiting. */
function cpuMs(from) {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

function rssMiB() {
  return process.memoryUsage().rss / 2 ** 20;
}

function peakMiB() {
  return process.resourceUsage().maxRSS / 1024;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
