// What the bench scripts (bench-peers, bench-transport, bench-cluster) share: a session that owns
// the throwaway server and the tool running against it, CPU pinning, FLUSHALL, the machine's
// description, and the figures' printing. The tools themselves are in redis-benchmark.mjs and
// redis-benchdb.mjs, one file per peer.

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { pinProcess, startServer } from '@redis-benchdb/engine';

/**
 * One cell, in plain terms that each peer turns into its own flags.
 * @typedef {object} Workload
 * @property {{ host: string, port: number } | { socket: string }} target
 * @property {boolean} [cluster] the target is any node of a Redis Cluster
 * @property {string[]} tests e.g. ['set', 'get']; the rows come back named in upper case
 * @property {number} connections
 * @property {number} valueSize bytes
 * @property {number} keyspaceSize
 * @property {number} requests per test
 * @property {number} pipelineDepth
 * @property {'batch' | 'window'} [pipelineMode] batch unless told
 * @property {number} [threads] the tool's default unless told
 */

/**
 * What a peer measured for one test of a workload. A peer may add fields (redis-benchdb keeps its
 * whole cell: saturation, crossCheck...), but these are always there and always finite.
 * @typedef {{ test: string, opsPerSec: number, latencyUs: { p50Us: number, p99Us: number } }} Row
 */

/**
 * A peer runs one workload and returns a row per test. Adding a tool is adding one of these.
 * @typedef {(workload: Workload) => Promise<Row[]>} Peer
 */

/** @typedef {(tool: string, bin: string, argv: string[]) => Promise<string>} Run */

/**
 * The process side of a bench script: it logs, runs one tool at a time (under taskset once
 * pinTools() is called), and stops whatever it was given to stop on the way out, on SIGINT too.
 * @param {string} script the script's name, e.g. 'bench-peers', for its messages
 * @param {{ what?: string }} [opts] what stopping stops, for the SIGINT message
 */
export function benchSession(script, { what = 'server' } = {}) {
  /** @type {import('node:child_process').ChildProcess | null} */
  let child = null;
  /** @type {string | null} */
  let toolCpus = null;
  /** @type {Array<{ stop(): Promise<void> }>} */
  const owned = [];
  /** @type {Promise<never> | null} */
  let stopping = null;

  const log = (/** @type {string} */ msg) => process.stderr.write(`[${script}] ${msg}\n`);

  /**
   * Idempotent: SIGINT, an unexpected server exit and the main flow may all ask at once.
   * @param {number} code
   * @param {string} [why]
   * @returns {Promise<never>}
   */
  function shutdown(code, why) {
    if (stopping) return stopping;
    if (why) console.error(`${script}: ${why}`);
    child?.kill('SIGKILL');
    stopping = Promise.all(owned.map((o) => o.stop().catch(() => {}))).then(() => process.exit(code));
    return stopping;
  }
  process.on('SIGINT', () => shutdown(130, `interrupted: stopping the ${what}`));

  /** @type {Run} */
  function run(tool, bin, argv) {
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      const [cmd, cmdArgs] = toolCpus ? ['taskset', ['-c', toolCpus, bin, ...argv]] : [bin, argv];
      const proc = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      proc.stdout.on('data', (d) => (stdout += d));
      proc.stderr.on('data', (d) => (stderr += d));
      proc.once('error', (e) => reject(new Error(`${tool} could not start: ${e.message}`)));
      proc.once('close', (code, signal) => {
        child = null;
        if (code === 0) return resolve(stdout);
        const how = signal ?? `exit code ${code}`;
        reject(new Error(`${tool} failed (${how}): ${bin} ${argv.join(' ')}\n${stderr.trim()}`));
      });
    });
  }

  return {
    log,
    run,
    shutdown,
    /**
     * Stop this on the way out; returns it.
     * @template {{ stop(): Promise<void> }} T
     * @param {T} thing
     * @returns {T}
     */
    own(thing) {
      owned.push(thing);
      return thing;
    },
    /** Run every tool under `taskset -c cpus` from now on. @param {string} cpus */
    pinTools(cpus) {
      toolCpus = cpus;
    },
    /**
     * The script's body: exit 0 when it returns, 1 with its message when it throws.
     * @param {() => Promise<void>} body
     */
    async main(body) {
      try {
        await body();
        await shutdown(0);
      } catch (err) {
        await shutdown(1, stopping ? undefined : /** @type {Error} */ (err).message);
      }
    },
  };
}

/**
 * A flag that must be a positive number (or integer); anything else exits 2 naming the flag.
 * @param {string} script
 * @param {Record<string, unknown>} args parseArgs values
 * @param {string} name
 * @param {{ integer?: boolean }} [opts]
 */
export function positiveFlag(script, args, name, { integer = false } = {}) {
  const v = Number(args[name]);
  if (v > 0 && (!integer || Number.isInteger(v))) return v;
  console.error(
    `${script}: --${name} must be a positive ${integer ? 'integer' : 'number'}, got ${args[name]}`,
  );
  process.exit(2);
}

/**
 * The engine's launchers pick free ports, so this cannot be the production server; make sure anyway.
 * @param {number[]} ports
 */
export function refuseProductionPort(ports) {
  if (ports.includes(6379)) throw new Error('refusing to load port 6379');
}

/**
 * With taskset and 2+ CPUs: the server (every thread of it) on the last CPU, the tools on the rest.
 * @param {number} serverPid
 * @returns {Promise<{ server: string, tools: string } | { server: null, tools: null, why: string }>}
 */
export async function pinServer(serverPid) {
  const n = os.availableParallelism();
  if (n < 2) return { server: null, tools: null, why: `${n} CPU` };
  const pin = await pinProcess(serverPid, String(n - 1));
  if (!pin.applied) return { server: null, tools: null, why: pin.error ?? 'unknown' };
  return { server: String(n - 1), tools: n === 2 ? '0' : `0-${n - 2}` };
}

/**
 * A bench script's throwaway redis-server: started on a free port and owned by the session, pinned
 * to the last CPU with the tools on the others (unless `pin` is false), logged, and ending the script
 * if it exits. The machine is described before anything is pinned: a pinned process sees one CPU.
 * @param {{ own: Function, pinTools: (cpus: string) => void, log: (m: string) => void, shutdown: Function }} session
 * @param {{ pin: boolean, tools: string }} opts tools: what runs on the other CPUs, for the log ("both tools")
 */
export async function benchServer(session, { pin, tools }) {
  const server = session.own(await startServer());
  refuseProductionPort([server.port]);
  const machine = describeMachine(server.version);
  const pinning = pin ? await pinServer(server.pid) : { server: null, tools: null, why: '--no-pin' };
  if (pinning.server) session.pinTools(pinning.tools);
  session.log(
    pinning.server
      ? `pinned: redis-server on CPU ${pinning.server}, ${tools} on CPU ${pinning.tools}`
      : `not pinned (${pinning.why})`,
  );
  server.exited.then(({ code, signal }) =>
    session.shutdown(1, `redis-server exited (code ${code}, signal ${signal})`),
  );
  session.log(
    `redis-server ${server.version} on 127.0.0.1:${server.port}; ${machine.cpu}, ${machine.nproc} CPUs`,
  );
  return { server, pinning, machine };
}

/**
 * A raw RESP FLUSHALL: enough for one command, and keeps the scripts free of client libraries.
 * Only ever sent to a script's own throwaway server, whose data is no one's.
 * @param {number} port on 127.0.0.1
 * @returns {Promise<void>}
 */
export function flushAll(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.write('*1\r\n$8\r\nFLUSHALL\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      String(d).startsWith('+OK') ? resolve() : reject(new Error(`FLUSHALL: ${d}`));
    });
    sock.once('error', reject);
  });
}

/** @param {string} redisServer the server's version */
export function describeMachine(redisServer) {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
  return {
    cpu: cpu ?? os.cpus()[0]?.model.trim() ?? 'unknown',
    nproc: os.availableParallelism(),
    redisServer,
    redisBenchmark: execFileSync('redis-benchmark', ['--version'], { encoding: 'utf8' }).trim(),
    node: process.version,
  };
}

/** NaN for no values. @param {number[]} xs */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Ops/s and µs as printed: whole, with thousands separators. @param {number} x */
export const fmt = (x) => Math.round(x).toLocaleString('en-US');

/**
 * A markdown table, columns padded to line up: the first `leftColumns` are text (left-aligned),
 * the rest figures (right-aligned).
 * @param {string[]} head
 * @param {string[][]} body
 * @param {number} [leftColumns]
 */
export function markdownTable(head, body, leftColumns = 1) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const pad = (/** @type {string} */ c, /** @type {number} */ i) =>
    i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]);
  const line = (/** @type {string[]} */ cols) => `| ${cols.map(pad).join(' | ')} |`;
  const rule = widths.map((w, i) => (i < leftColumns ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`));
  return [line(head), line(rule), ...body.map(line)].join('\n');
}

/**
 * Polls a server's INFO commandstats and cpu every `intervalMs` over one raw socket while a tool
 * runs, so that every tool is measured by the same clock: the server's count of the calls it served,
 * and the CPU its main thread spent serving them. A tool's own ops/s runs over its own clock and
 * includes its start-up (a fresh Node worker spends its first ~100 ms compiling its hot path on the
 * one CPU it is pinned to); the server's rate over the middle of the run does not. 20 INFO calls a
 * second cost the server nothing that shows. `INFO all`, not two sections: Redis before 7.0 takes
 * one section name only.
 * @param {number} port on 127.0.0.1
 * @param {{ intervalMs?: number }} [opts]
 */
export function commandRateSampler(port, { intervalMs = 50 } = {}) {
  /** @type {Sample[]} */
  const samples = [];
  const sock = net.connect(port, '127.0.0.1');
  let buf = Buffer.alloc(0);
  let waiting = false;
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    const nl = buf.indexOf('\r\n');
    if (nl < 0) return;
    const len = Number(buf.subarray(1, nl).toString());
    if (buf.length < nl + 2 + len + 2) return;
    const text = buf.subarray(nl + 2, nl + 2 + len).toString();
    buf = buf.subarray(nl + 2 + len + 2);
    waiting = false;
    /** @type {Record<string, number>} */
    const calls = {};
    for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
    const user = text.match(/^used_cpu_user_main_thread:([\d.]+)/m);
    const sys = text.match(/^used_cpu_sys_main_thread:([\d.]+)/m);
    const mainCpuSec = user && sys ? Number(user[1]) + Number(sys[1]) : null;
    samples.push({ t: performance.now(), calls, mainCpuSec });
  });
  sock.on('error', () => {});
  const timer = setInterval(() => {
    if (waiting || sock.connecting) return;
    waiting = true;
    sock.write('*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n');
  }, intervalMs);
  return {
    /** Stop polling; the samples taken, in order. */
    stop() {
      clearInterval(timer);
      sock.destroy();
      return samples;
    },
  };
}

/**
 * @typedef {{ t: number, calls: Record<string, number>, mainCpuSec?: number | null }} Sample
 * t: ms (performance.now()); mainCpuSec: the server's main thread's user+sys CPU seconds, null
 * where the server does not report it (before Redis 6.2).
 */

/**
 * The middle of the first period a command was being served: the period runs from the last sample
 * before its count first grew to the first sample after it last grew before a pause, and `trim` of
 * it is dropped at each end (start-up and the last stragglers). Null when fewer than 4 samples
 * fall inside, too short a run to say.
 * @param {Sample[]} samples
 * @param {string} command lower case, as in INFO commandstats: 'set', 'get'
 * @param {number} trim
 * @returns {{ from: Sample, to: Sample } | null}
 */
function steadySpan(samples, command, trim) {
  const count = (/** @type {number} */ i) => samples[i]?.calls[command] ?? 0;
  // Only the first period of growth: a run can serve the command again later (redis-benchdb's drift
  // check repeats its first cell after the others), and a span that took in the pause between
  // would read as a rate too low. A pause is GAP_SAMPLES samples in a row without growth.
  const GAP_SAMPLES = 5;
  let first = -1;
  let last = -1;
  for (let i = 1; i < samples.length; i++)
    if (count(i) > count(i - 1)) {
      if (first >= 0 && i - last > GAP_SAMPLES) break;
      if (first < 0) first = i - 1;
      last = i;
    }
  if (first < 0) return null;
  const t0 = samples[first].t;
  const span = samples[last].t - t0;
  const from = samples.findIndex((s) => s.t >= t0 + trim * span);
  let to = last;
  while (to > from && samples[to].t > t0 + (1 - trim) * span) to--;
  if (from < 0 || to - from < 3) return null;
  return { from: samples[from], to: samples[to] };
}

/**
 * A command's rate (calls a second) over the middle of the first period it was being served
 * (steadySpan), or null.
 * @param {Sample[]} samples
 * @param {string} command
 * @param {number} [trim]
 */
export function steadyRate(samples, command, trim = 0.2) {
  const span = steadySpan(samples, command, trim);
  if (span === null) return null;
  const { from, to } = span;
  return ((to.calls[command] - from.calls[command]) * 1000) / (to.t - from.t);
}

/**
 * The server's main-thread CPU per call of a command (µs) over the same middle span as steadyRate:
 * what a request costs the server while this tool drives it. Two tools that leave the server equally
 * busy at equal cost per call get equal throughput; a tool whose way of sending (how many requests
 * each wake finds) made the server slower per call shows it here. Null where steadyRate is, or the
 * server reports no main-thread CPU.
 * @param {Sample[]} samples
 * @param {string} command
 * @param {number} [trim]
 */
export function steadyServerCpuPerCall(samples, command, trim = 0.2) {
  const span = steadySpan(samples, command, trim);
  if (span === null) return null;
  const { from, to } = span;
  if (from.mainCpuSec == null || to.mainCpuSec == null) return null;
  return ((to.mainCpuSec - from.mainCpuSec) * 1e6) / (to.calls[command] - from.calls[command]);
}
