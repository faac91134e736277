// How long a submitter waits for their page: the publishing service over a database of N results.
//   pnpm bench:publish [--count N] [--db PATH] [--keep] [--debounce MS]
// Starts `redis-benchdb-server --site-dir` from its own entry point over a database of N synthetic
// results (scripts/gen-synthetic-db.mjs; --db reuses one, and the submitted result is added to it),
// waits for the first build of the site (cold: every page), then POSTs one real signed result (a
// `redis-benchdb run` against a throwaway redis-server) and times, from the POST, until its page,
// not the placeholder, is served: the service builds the new result's page alone first and serves it,
// then the rest of the site (its lists, machine, version and explorer pages), whose time it also prints. The service's builds draw no chart PNG (it draws each on request)
// and keep the open data in the site directory, so the build after the submit writes it again, as a
// real service's would.
// Run it on a quiet machine: the builds take both cores for minutes.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    db: { type: 'string' },
    debounce: { type: 'string', default: '2000' },
    keep: { type: 'boolean', default: false },
  },
});
const log = (msg) =>
  process.stderr.write(`[bench-publish] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const tmp = mkdtempSync(join(os.tmpdir(), 'rbdb-bench-publish-'));
const children = [];
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  if (args.keep) log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

function freePort() {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/** Start a process; resolves with it once a stdout line matches `ready`, and the match. */
function start(cmd, argv, ready, opts = {}) {
  return new Promise((done, reject) => {
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = ready.exec(out);
      if (m) done({ child, match: m });
    });
    child.stderr.on('data', (d) => {
      serviceLog += d;
      process.stderr.write(d);
    });
    child.once('exit', (code) =>
      reject(new Error(`${cmd} exited with ${code} before it was ready:\n${out}`)),
    );
  });
}

/** Everything the processes started here printed on stderr: the service says when new pages went live. */
let serviceLog = '';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function health(url) {
  return (await fetch(`${url}/api/v1/health`)).json();
}

/** Until the site is built and nothing is due. */
async function settled(url) {
  for (;;) {
    // A fetch can fail while the machine is paused for someone else's measurement: ask again.
    const h = await health(url).catch(() => null);
    if (h === null) continue;
    if (h.site.state === 'failed')
      throw new Error(`the site build failed: ${h.site.lastFailure} (the service's stderr has the log)`);
    if (h.site.state === 'ready' && !h.site.building && !h.site.pending) return h;
    await sleep(1000);
  }
}

const machine = `${os.cpus()[0]?.model ?? '?'}, nproc ${os.availableParallelism()}, node ${process.version}`;
let dbPath = args.db ? resolve(args.db) : join(tmp, 'bench.sqlite');
if (!args.db) {
  log(`generating ${args.count} synthetic results into ${dbPath}`);
  const g = spawnSync(
    process.execPath,
    ['scripts/gen-synthetic-db.mjs', '--count', args.count, '--out', dbPath],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (g.status !== 0) process.exit(1);
}
dbPath = resolve(dbPath);

try {
  const redisPort = await freePort();
  await start(
    'redis-server',
    ['--port', String(redisPort), '--save', '', '--appendonly', 'no'],
    /Ready to accept/,
  );
  log(`redis-server on ${redisPort}; signing one result with redis-benchdb run`);
  const home = join(tmp, 'home');
  const envelopeFile = join(tmp, 'result.json');
  const cli = spawnSync(
    process.execPath,
    [
      'packages/cli/dist/bin.js',
      'run',
      '-t',
      'get',
      '-n',
      '20000',
      '-c',
      '5',
      '-p',
      String(redisPort),
      '-q',
      '--out',
      envelopeFile,
      '--db',
      join(tmp, 'local.sqlite'),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, HOME: home, REDIS_BENCHDB_CONFIG_DIR: '', XDG_CONFIG_HOME: '' },
      encoding: 'utf8',
    },
  );
  if (cli.status !== 0) throw new Error(`redis-benchdb run failed:\n${cli.stderr}`);

  const t0 = performance.now();
  const { match } = await start(
    process.execPath,
    [
      'packages/server/dist/main.js',
      '--db',
      dbPath,
      '--port',
      '0',
      '--site-dir',
      join(tmp, 'site'),
      '--site-debounce',
      args.debounce,
      '--per-ip-per-minute',
      '100000',
    ],
    /listening on (\S+)/,
  );
  const url = match[1];
  log(`service at ${url}; waiting for the first build`);
  const first = await settled(url);
  const firstSec = (performance.now() - t0) / 1000;
  log(`first build ${(first.site.lastBuildMs / 1000).toFixed(1)} s (${first.results} results)`);

  const submitted = performance.now();
  const res = await fetch(`${url}/api/v1/results`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: readFileSync(envelopeFile),
  });
  const answered = performance.now();
  const body = await res.json();
  if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${JSON.stringify(body)}`);
  let placeholder = null;
  let live;
  for (;;) {
    const page = await fetch(`${url}${body.pagePath}`);
    const text = await page.text();
    if (page.status === 200 && text.includes(body.id) && text.includes('id="rank"')) {
      live = performance.now();
      break;
    }
    if (page.status === 202 && placeholder === null) {
      placeholder = /id="expected">([^<]*)</.exec(text)?.[1] ?? '';
      log(`placeholder: ${placeholder}`);
    }
    await sleep(250);
  }
  // The service serves a new page after a build of the new result pages alone, then builds the rest.
  const pagesBuild = [...serviceLog.matchAll(/new result page\(s\) live in ([\d.]+) s/g)].at(-1)?.[1];
  const after = await settled(url);
  const rows = [
    ['machine', `${machine}, load ${os.loadavg()[0].toFixed(1)}`],
    ['database', `${dbPath} (${first.results} results before the submit)`],
    [
      'service start to first site',
      `${firstSec.toFixed(1)} s (build ${(first.site.lastBuildMs / 1000).toFixed(1)} s)`,
    ],
    ['POST answered 201', `${(answered - submitted).toFixed(0)} ms`],
    ['placeholder said', placeholder ?? '(never seen: the page was there at the first GET)'],
    [
      'submit to live page',
      `${((live - submitted) / 1000).toFixed(1)} s (debounce ${args.debounce} ms, ${pagesBuild ? `its page's build ${pagesBuild} s` : `build ${(after.site.lastBuildMs / 1000).toFixed(1)} s`})`,
    ],
    ['the whole site rebuilt after', `${(after.site.lastBuildMs / 1000).toFixed(1)} s`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(30)}${v}`);
} finally {
  cleanup();
}
