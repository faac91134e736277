// The ingest service's sustained throughput: accepted submissions per second, and response times.
//   pnpm bench:ingest [--count N] [--clients C] [--check-threads T] [--json]
// Starts packages/server/dist/main.js as its own process on a free loopback port over a temp SQLite
// file (synchronous=FULL, as in production), signs N distinct submissions of a small result (~5 KiB,
// one key) before the clock starts, then posts them from C keep-alive connections, each sending its
// next submission as soon as the last is answered (closed loop). Every answer must be 201.

import { spawn } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const result = await import('@redis-benchdb/result');

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '50' },
    'check-threads': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
function positive(name) {
  const v = Number(args[name]);
  if (Number.isInteger(v) && v > 0) return v;
  console.error(`bench-ingest: --${name} must be a positive integer, got ${args[name]}`);
  process.exit(2);
}
const count = positive('count');
const clients = positive('clients');
const log = (msg) => process.stderr.write(`[bench-ingest] ${msg}\n`);

// schemas/examples/valid/minimal.json, one SET cell. Its trial's maxUs (3724) is under its p9999Us
// (3725), an HdrHistogram rounding the database's plausibility check refuses: raise it to match.
const doc = JSON.parse(
  readFileSync(new URL('../schemas/examples/valid/minimal.json', import.meta.url), 'utf8'),
);
const trial = doc.cells[0].trials[0].latencyUs;
trial.maxUs = Math.max(trial.maxUs, trial.p9999Us);

/**
 * N distinct envelopes: run i starts i seconds after the example. One canonical payload, its two
 * timestamps replaced in the text (still canonical), signed with node:crypto: ~0.05 ms each.
 */
function signedSubmissions(n) {
  const key = result.generateSigningKey();
  const payload = result.canonicalJson(doc);
  const fields = ['startedAt', 'finishedAt'].map((name) => ({
    name,
    text: `"${name}":"${doc[name]}"`,
    at: Date.parse(doc[name]),
  }));
  const privateKey = createPrivateKey(key.privateKeyPem);
  const raw = result.rawPublicKey(result.publicKeyFromPrivate(key.privateKeyPem));
  const envelope = { publicKey: raw.toString('base64'), keyFingerprint: result.keyFingerprint(raw) };
  const out = [];
  for (let i = 0; i < n; i++) {
    let p = payload;
    for (const f of fields) p = p.replace(f.text, `"${f.name}":"${new Date(f.at + i * 1000).toISOString()}"`);
    const signature = sign(null, Buffer.from(p, 'utf8'), privateKey).toString('base64');
    out.push(JSON.stringify({ schema: 'redis-benchdb/envelope.v1', payload: p, signature, ...envelope }));
  }
  return out;
}

/** Each request serialised to one Buffer before the clock starts, and written as is. */
function requestBuffer(host, body) {
  const head =
    `POST /api/v1/results HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body, 'utf8')]);
}

/**
 * One keep-alive connection answering one request at a time: just enough HTTP/1.1 to read a status
 * line and a content-length body (what fastify sends). Lighter than fetch, so that on a small machine
 * the client leaves the CPU to the service being measured.
 */
function connection(port) {
  const socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
  let buffered = Buffer.alloc(0);
  let waiting = null;
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const head = buffered.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const status = Number(head.slice(9, 12));
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const w = waiting;
    waiting = null;
    w.resolve({ status, body });
  });
  const fail = (e) => waiting?.reject(e ?? new Error('connection closed'));
  socket.on('error', fail);
  socket.on('close', () => fail());
  return {
    ready: new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject)),
    send(buf) {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(buf);
      });
    },
    close: () => socket.end(),
  };
}

function startService(dbPath) {
  const main = fileURLToPath(new URL('../packages/server/dist/main.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      main,
      '--db',
      dbPath,
      '--port',
      '0',
      '--per-ip-per-minute',
      '1000000000',
      '--per-key-per-minute',
      '1000000000',
      // The service's default otherwise: the CPUs available less one.
      ...(args['check-threads'] ? ['--check-threads', String(positive('check-threads'))] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the service exited (${code ?? signal})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (http:\/\/(\S+):(\d+))$/.exec(line);
      if (m) resolve({ child, url: m[1], host: `${m[2]}:${m[3]}`, port: Number(m[3]) });
    });
  });
}

/**
 * CPU time so far, ms: the service's process (all its threads: /proc/PID/stat, in clock ticks), its
 * main thread, which runs the event loop (/proc/PID/task/PID/schedstat, in ns), and this client.
 * On a machine shared with other work these say what the service and the client cost, where the wall
 * clock also counts waiting for a CPU. Null where /proc is not there (not Linux).
 */
function cpuMs(pid) {
  const client = process.cpuUsage();
  const clientMs = (client.user + client.system) / 1000;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, in USER_HZ ticks (100 a second on Linux).
    const serviceMs = (Number(fields[11]) + Number(fields[12])) * 10;
    const mainNs = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'latin1').split(' ')[0]);
    return { serviceMs, mainMs: mainNs / 1e6, clientMs };
  } catch {
    return { serviceMs: null, mainMs: null, clientMs };
  }
}

const perSubmission = (a, b, key, n) => (a[key] === null ? null : Number(((b[key] - a[key]) / n).toFixed(3)));

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const dir = mkdtempSync(join(os.tmpdir(), 'rbdb-bench-ingest-'));
let service = null;
try {
  log(`signing ${count.toLocaleString('en-US')} submissions`);
  const signStart = performance.now();
  const bodies = signedSubmissions(count);
  log(
    `signed in ${((performance.now() - signStart) / 1000).toFixed(1)} s, ${Buffer.byteLength(bodies[0])} bytes each`,
  );

  service = await startService(join(dir, 'benchdb.sqlite'));
  const requests = bodies.map((b) => requestBuffer(service.host, b));
  const conns = Array.from({ length: clients }, () => connection(service.port));
  await Promise.all(conns.map((c) => c.ready));
  log(`posting from ${clients} connections to ${service.url}`);

  const latencyMs = new Float64Array(count);
  const finishedAtMs = new Float64Array(count);
  let next = 0;
  let accepted = 0;
  const refused = new Map();
  const cpuBefore = cpuMs(service.child.pid);
  const start = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      while (next < count) {
        const i = next++;
        const sent = performance.now();
        const { status, body } = await c.send(requests[i]);
        const now = performance.now();
        latencyMs[i] = now - sent;
        finishedAtMs[i] = now - start;
        if (status === 201) accepted++;
        else refused.set(status, `${body.slice(0, 200)}`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = cpuMs(service.child.pid);
  for (const c of conns) c.close();
  if (refused.size > 0) throw new Error(`not every submission was accepted: ${[...refused].join('; ')}`);

  const health = await (await fetch(`${service.url}/api/v1/health`)).json();
  if (health.results !== count) throw new Error(`the database holds ${health.results}, not ${count}`);

  // Sustained: the median of the per-second counts, leaving out the first and the last (partial) second.
  const perSecond = new Array(Math.ceil(seconds)).fill(0);
  for (const t of finishedAtMs) perSecond[Math.floor(t / 1000)]++;
  const inner = perSecond.slice(1, -1).sort((a, b) => a - b);
  const sorted = Float64Array.from(latencyMs).sort();
  const figures = {
    submissions: count,
    clients,
    bodyBytes: Buffer.byteLength(bodies[0]),
    seconds: Number(seconds.toFixed(2)),
    acceptedPerSec: Math.round(accepted / seconds),
    sustainedPerSecMedian: inner.length > 0 ? inner[Math.floor(inner.length / 2)] : null,
    p50Ms: Number(percentile(sorted, 50).toFixed(2)),
    p99Ms: Number(percentile(sorted, 99).toFixed(2)),
    maxMs: Number(sorted[sorted.length - 1].toFixed(2)),
    cpuMsPerSubmission: {
      service: perSubmission(cpuBefore, cpuAfter, 'serviceMs', count),
      serviceMainThread: perSubmission(cpuBefore, cpuAfter, 'mainMs', count),
      client: perSubmission(cpuBefore, cpuAfter, 'clientMs', count),
    },
    loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
    machine: {
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      nproc: os.availableParallelism(),
      node: process.version,
    },
  };
  if (args.json) console.log(JSON.stringify(figures, null, 2));
  else
    console.log(
      [
        `machine: ${figures.machine.cpuModel}, nproc ${figures.machine.nproc}, node ${figures.machine.node}`,
        `${count.toLocaleString('en-US')} submissions (${figures.bodyBytes} bytes each) from ${clients} connections in ${figures.seconds} s`,
        `accepted/s: ${figures.acceptedPerSec} overall, ${figures.sustainedPerSecMedian ?? '-'} median per-second`,
        `response time: p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, max ${figures.maxMs} ms`,
        `CPU ms per submission: service ${figures.cpuMsPerSubmission.service ?? '-'} (event-loop thread ${figures.cpuMsPerSubmission.serviceMainThread ?? '-'}), client ${figures.cpuMsPerSubmission.client}`,
        `load average at the end: ${figures.loadAverage.join(', ')}`,
      ].join('\n'),
    );
} finally {
  if (service) {
    service.child.removeAllListeners('exit');
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
  }
  rmSync(dir, { recursive: true, force: true });
}
