// How the site builds at scale: a throwaway database of N synthetic results, then `astro build`.
//   pnpm bench:site [--count N] [--seed S] [--db PATH] [--png] [--no-rebuild] [--keep] [--json]
// Times the generation and the build separately, then weighs the output: pages, dist size, result
// page HTML (the document itself, inline SVG, CSS and JS included; PNGs are separate files), the
// largest page, pages with a <script>, and the JS in dist/_astro. Goals: build < 3 min, every
// result page < 100 KB (100,000 bytes). Exits 1 when the build fails or a goal is missed.
// The build is the default one: pages, chart SVGs and open data, no chart PNGs (the publishing service
// draws those on request; a static host opts in with site:build --png). The first build is cold: empty
// open-data and PNG caches. A second build of the same database (skip it with --no-rebuild) shows a
// rebuild: the open data is linked from its cache. --png builds as `site:build --png` does, and times
// the PNG drawing apart (a chart never changes once drawn, so a rebuild takes them from the cache).
// The 3-minute goal is checked on the cold build without PNG drawing, and on the rebuild whole.
// --db PATH builds from an existing database instead (kept; no generation), to re-time a build.
// --weigh DIR only weighs a site already built there (e.g. site/dist), and checks the page goal.

import { spawn } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SITE = join(ROOT, 'site');
const GOALS = { buildSec: 180, resultPageBytes: 100_000 };

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    db: { type: 'string' },
    weigh: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-rebuild': { type: 'boolean', default: false },
    png: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const count = Number(args.count);
if (!Number.isInteger(count) || count < 1) {
  console.error(`bench-site: --count must be a positive integer, got ${args.count}`);
  process.exit(2);
}
const log = (msg) => process.stderr.write(`[bench-site] ${msg}\n`);

const tmp = mkdtempSync(join(os.tmpdir(), 'rbdb-bench-site-'));
const dbPath = args.db ? resolve(args.db) : join(tmp, 'bench.sqlite');
// The output goes under site/ on purpose. With an outDir outside its cwd (site/), Astro stages its
// prerender chunks in site/.astro/, which every other build of the site in this checkout shares: a
// concurrent build deletes them mid-run ("Cannot find module site/.astro/pages/..."). Inside site/,
// the chunks stay in our own outDir, and their imports still resolve from site/node_modules.
const cache = join(SITE, 'node_modules/.cache');
mkdirSync(cache, { recursive: true });
const outParent = mkdtempSync(join(cache, 'rbdb-bench-site-'));
const outDir = join(outParent, 'dist');
const cleanup = () => {
  if (args.keep) return log(`kept ${tmp} and ${outParent}`);
  rmSync(tmp, { recursive: true, force: true });
  rmSync(outParent, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

/** Run a command, its output to a log file; resolves with the wall time, rejects with the log's tail. */
function run(cmd, argv, logFile, env = {}) {
  return new Promise((done, reject) => {
    const t0 = performance.now();
    const out = createWriteStream(logFile);
    const child = spawn(cmd, argv, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (code) => {
      out.end(() => {
        const seconds = (performance.now() - t0) / 1000;
        if (code === 0) return done(seconds);
        const tail = readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
        reject(new Error(`${cmd} ${argv.join(' ')} exited with ${code}:\n${tail}`));
      });
    });
  });
}

function* walk(dir, rel = '') {
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) yield* walk(dir, p);
    else yield { path: p, bytes: statSync(join(dir, p)).size };
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

/** Everything the report says about the built site. */
function weigh(dir) {
  const files = [...walk(dir)];
  const html = files.filter((f) => f.path.endsWith('.html'));
  const isResultPage = (p) => /^results\/[^/]+\/index\.html$/.test(p);
  const resultSizes = html
    .filter((f) => isResultPage(f.path))
    .map((f) => f.bytes)
    .sort((a, b) => a - b);
  const largest = html.reduce((m, f) => (f.bytes > m.bytes ? f : m), { path: null, bytes: 0 });
  const largestResult = html
    .filter((f) => isResultPage(f.path))
    .reduce((m, f) => (f.bytes > m.bytes ? f : m), { path: null, bytes: 0 });
  let withScript = 0;
  let withExecutableScript = 0;
  for (const f of html) {
    const text = readFileSync(join(dir, f.path), 'utf8');
    const tags = text.match(/<script\b[^>]*>/gi) ?? [];
    if (tags.length > 0) withScript++;
    // JSON and JSON-LD blocks are data, not code: only the rest needs JS to run.
    if (tags.some((t) => !/type\s*=\s*["']?application\/(ld\+)?json/i.test(t))) withExecutableScript++;
  }
  const astroJs = files.filter((f) => f.path.startsWith('_astro/') && /\.m?js$/.test(f.path));
  const sum = (xs) => xs.reduce((s, f) => s + f.bytes, 0);
  const png = files.filter((f) => f.path.endsWith('.png'));
  return {
    sections: sections(html),
    files: files.length,
    pages: html.length,
    resultPages: resultSizes.length,
    distBytes: sum(files),
    htmlBytes: sum(html),
    pngFiles: png.length,
    pngBytes: sum(png),
    resultPageBytes: {
      median: quantile(resultSizes, 0.5),
      p95: quantile(resultSizes, 0.95),
      max: resultSizes.at(-1) ?? 0,
      largest: largestResult.path,
    },
    largestPage: largest,
    pagesWithScript: withScript,
    pagesWithExecutableScript: withExecutableScript,
    astroJsFiles: astroJs.length,
    astroJsBytes: sum(astroJs),
  };
}

/** HTML pages and bytes by kind of page: every segment between the first and the last becomes a star. */
function sections(html) {
  const by = new Map();
  for (const f of html) {
    const parts = f.path.split('/');
    const key = parts.map((seg, i) => (i === 0 || i === parts.length - 1 ? seg : '*')).join('/');
    const s = by.get(key) ?? { pages: 0, bytes: 0 };
    s.pages++;
    s.bytes += f.bytes;
    by.set(key, s);
  }
  return Object.fromEntries([...by].sort((a, b) => b[1].bytes - a[1].bytes));
}

function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  return { cpu, nproc: os.availableParallelism(), node: process.version, loadavg1: round(os.loadavg()[0]) };
}

function pageGoal(site) {
  return site.resultPages > 0 && site.resultPageBytes.max < GOALS.resultPageBytes;
}

if (args.weigh) {
  args.keep = false;
  cleanup();
  const site = weigh(resolve(args.weigh));
  const r = {
    machine: machine(),
    db: null,
    generation: null,
    build: null,
    site,
    goals: { resultPageUnder100KB: pageGoal(site) },
  };
  if (args.json) console.log(JSON.stringify(r, null, 2));
  else printTable(r);
  process.exit(r.goals.resultPageUnder100KB ? 0 : 1);
}

let report;
try {
  let generation = null;
  if (!args.db) {
    log(`generating ${count} synthetic results into ${dbPath}`);
    const genLog = join(tmp, 'generate.log');
    const sec = await run(
      process.execPath,
      [
        'scripts/gen-synthetic-db.mjs',
        '--count',
        String(count),
        '--seed',
        args.seed,
        '--out',
        dbPath,
        '--json',
      ],
      genLog,
    );
    generation = {
      seconds: round(sec),
      ...JSON.parse(readFileSync(genLog, 'utf8').trim().split('\n').at(-1)),
    };
  }
  const pngCache = join(tmp, 'png-cache');
  const openDataCache = join(tmp, 'open-data-cache');
  const build = async (name) => {
    log(`${name} build of the site into ${outDir}`);
    const logFile = join(tmp, `${name}.log`);
    const seconds = await run(
      process.execPath,
      // --verbose: the PNG and open-data lines read below are Astro's log, not the screen's summary.
      [
        'scripts/site-build.mjs',
        '--verbose',
        '--db',
        dbPath,
        '--out',
        outDir,
        ...(args.png ? ['--png'] : []),
      ],
      logFile,
      { REDIS_BENCHDB_PNG_CACHE: pngCache, REDIS_BENCHDB_OPEN_DATA_CACHE: openDataCache },
    );
    const text = readFileSync(logFile, 'utf8');
    const png = /(\d+) PNGs: (\d+) drawn, (\d+) from cache, in ([\d.]+) s/.exec(text);
    const open = /open data: \d+ results in ([\d.]+) s, (linked|written)/.exec(text);
    const pngSec = png ? Number(png[4]) : 0;
    return {
      seconds: round(seconds),
      withoutPngSeconds: round(seconds - pngSec),
      openDataSeconds: open ? Number(open[1]) : null,
      openDataReused: open ? open[2] === 'linked' : null,
      png: png
        ? { files: Number(png[1]), drawn: Number(png[2]), cached: Number(png[3]), seconds: pngSec }
        : null,
    };
  };
  const cold = await build('cold');
  const site = weigh(outDir);
  const rebuild = args['no-rebuild'] ? null : await build('rebuild');
  const dbBytes = statSync(dbPath).size;
  report = {
    machine: machine(),
    count: generation ? count : null,
    db: { path: args.db ? dbPath : null, bytes: dbBytes },
    generation,
    build: cold,
    rebuild,
    site,
    goals: {
      buildUnder3Min:
        cold.withoutPngSeconds < GOALS.buildSec && (!rebuild || rebuild.seconds < GOALS.buildSec),
      resultPageUnder100KB: pageGoal(site),
    },
  };
} catch (e) {
  log(e.message);
  cleanup();
  process.exit(1);
}
cleanup();
if (args.json) console.log(JSON.stringify(report, null, 2));
else printTable(report);
process.exit(Object.values(report.goals).every(Boolean) ? 0 : 1);

function round(x) {
  return Math.round(x * 100) / 100;
}

function printTable(r) {
  const kb = (b) => `${(b / 1000).toFixed(1)} KB`;
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  const s = r.site;
  const g = r.generation;
  const rows = [
    [
      'machine',
      `${r.machine.cpu}, nproc ${r.machine.nproc}, node ${r.machine.node}, load ${r.machine.loadavg1}`,
    ],
    ['database', r.db ? `${mb(r.db.bytes)}${r.db.path ? ` (${r.db.path})` : ''}` : 'n/a (--weigh)'],
    g
      ? [
          'generation',
          `${g.count} results in ${g.seconds} s (${Math.round(g.count / g.seconds)}/s, ${g.workers} workers; envelope ${kb(g.envelopeBytesAvg)} avg)`,
        ]
      : ['generation', 'skipped (--db or --weigh)'],
    [
      'cold build',
      r.build
        ? `${r.build.seconds} s: ${r.build.withoutPngSeconds} s pages, SVGs and open data (open data written in ${r.build.openDataSeconds} s, beside the pages)${r.build.png ? `, ${r.build.png.seconds} s drawing ${r.build.png.drawn} PNGs` : ''}`
        : 'n/a (--weigh)',
    ],
    ...(r.rebuild
      ? [
          [
            'rebuild, same database',
            `${r.rebuild.seconds} s (open data ${r.rebuild.openDataReused ? 'linked from its cache' : 'written again'} in ${r.rebuild.openDataSeconds} s; ${r.rebuild.png ? `${r.rebuild.png.cached} PNGs from cache, ${r.rebuild.png.drawn} drawn` : 'no PNGs: drawn on request'})`,
          ],
        ]
      : []),
    ['pages', `${s.pages} HTML (${s.resultPages} result pages), ${s.files} files`],
    ['dist size', `${mb(s.distBytes)} (HTML ${mb(s.htmlBytes)}, ${s.pngFiles} PNGs ${mb(s.pngBytes)})`],
    [
      'result page HTML',
      `median ${kb(s.resultPageBytes.median)}, p95 ${kb(s.resultPageBytes.p95)}, max ${kb(s.resultPageBytes.max)}`,
    ],
    ...Object.entries(s.sections)
      .slice(0, 8)
      .map(([k, v]) => [`  ${k}`, `${v.pages} pages, ${mb(v.bytes)}, ${kb(v.bytes / v.pages)} avg`]),
    ['largest page', s.largestPage.path ? `${s.largestPage.path} ${kb(s.largestPage.bytes)}` : 'none'],
    [
      'pages with <script>',
      `${s.pagesWithScript} (${s.pagesWithExecutableScript} with executable JS, not JSON)`,
    ],
    ['JS in _astro/', `${s.astroJsFiles} files, ${kb(s.astroJsBytes)}`],
    ...(r.build ? [['goal: build < 3 min', r.goals.buildUnder3Min ? 'PASS' : 'FAIL']] : []),
    [
      'goal: result page < 100 KB',
      r.goals.resultPageUnder100KB ? 'PASS' : s.resultPages === 0 ? 'FAIL (no result pages built)' : 'FAIL',
    ],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
}
