// What the built site states between two server versions, beside the paired evidence it rests on.
// For each machine kind in data/results, each configuration, and each pair of versions of one product
// (valkey 8.0.1 vs 7.2.7 and redis 7.0.15 vs 6.0.20 always; every other pair that an interleaved
// group in data/ holds), prints:
//   - the evidence: each interleaved group holding both, its paired per-round ratio of GET and SET with
//     the 95% interval, computed here from the result files (pairedCellRatio, as the runner prints it),
//     and the verdict that interval allows (pairedVerdict: none while either cell is flagged);
//   - what the home page and the version pages of the built site say about that pair on that kind
//     and configuration (VersionsByKind.astro's cells, read from the HTML).
// A site that states a ratio outside the evidence's interval, or a verdict the evidence does not
// allow, is marked "CONTRADICTS". Exit status 1 then.
//   pnpm -s build && node scripts/db-build.mjs --db /tmp/d.sqlite && node scripts/site-build.mjs --db /tmp/d.sqlite --out /tmp/site
//   node scripts/site-claims.mjs --site /tmp/site [--data data] [--json]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  configFactsOf,
  configIdentity,
  machineFactsOf,
  machineIdentity,
  noVerdictWarnings,
  pairedCellRatio,
  pairedVerdict,
} from '@redis-benchdb/result';

const root = fileURLToPath(new URL('..', import.meta.url));
const { parseHTML } = createRequire(join(root, 'site/package.json'))('linkedom');

const { values } = parseArgs({
  options: {
    site: { type: 'string' },
    data: { type: 'string', default: join(root, 'data') },
    json: { type: 'boolean' },
  },
});
if (!values.site || !existsSync(join(values.site, 'index.html'))) {
  console.error(
    'site-claims: give --site DIR, a site built from data/ (node scripts/site-build.mjs --db DB --out DIR)',
  );
  process.exit(2);
}
/** The pairs the issue names: always printed, on every machine kind, evidence or not. */
const NAMED = [
  { product: 'valkey', ref: '7.2.7', version: '8.0.1' },
  { product: 'redis', ref: '6.0.20', version: '7.0.15' },
];
// The baseline's GET and SET, and the compare profile's pipelined ones (issue 29), as the version rule reads them.
const LABELS = ['GET', 'SET', 'GET P10 16B', 'SET P10 16B'];

// --- The evidence: the result files.
const results = join(values.data, 'results');
const docs = readdirSync(results)
  .filter((d) => d !== 'keys' && statSync(join(results, d)).isDirectory())
  .flatMap((d) =>
    readdirSync(join(results, d))
      .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
      .map((f) => JSON.parse(JSON.parse(readFileSync(join(results, d, f), 'utf8')).payload)),
  );
const machineOf = (doc) => machineIdentity(machineFactsOf(doc));
const configOf = (doc) => configIdentity(configFactsOf(doc));
const kinds = new Map();
for (const d of docs) kinds.set(machineOf(d).key, machineOf(d).label);

const flags = (doc, cell) =>
  noVerdictWarnings(doc.warnings, {
    label: cell.label,
    unstable: cell.unstable,
    clientBound: cell.saturation.clientBound,
  });

/** Interleaved groups: members by group, each with its kind and configuration. */
const groups = new Map();
for (const d of docs) {
  if (!d.runGroup?.schedule?.length) continue;
  groups.set(d.runGroup.id, [...(groups.get(d.runGroup.id) ?? []), d]);
}

/** Every paired figure a group holds: b against a, same product, kind and configuration. */
const evidence = [];
for (const [group, members] of groups)
  for (const a of members)
    for (const b of members) {
      const sa = a.environment.server;
      const sb = b.environment.server;
      if (a === b || sa.product !== sb.product || sa.version === sb.version) continue;
      if (machineOf(a).key !== machineOf(b).key || configOf(a).key !== configOf(b).key) continue;
      for (const label of LABELS) {
        const ca = a.cells.find((c) => c.label === label);
        const cb = b.cells.find((c) => c.label === label);
        if (!ca || !cb) continue;
        const p = pairedCellRatio(ca, cb);
        if (!p) continue;
        evidence.push({
          group,
          machine: machineOf(a).key,
          config: configOf(a).key,
          configLabel: configOf(a).label,
          product: sa.product,
          ref: sa.version,
          version: sb.version,
          label,
          ratio: p.ratio,
          low: p.ci95Low,
          high: p.ci95High,
          rounds: p.n,
          verdict: pairedVerdict(p, flags(a, ca), flags(b, cb)),
        });
      }
    }

// --- What the site states: every version figure of the home page and the version pages.
function statementsOf(file, page) {
  const { document } = parseHTML(readFileSync(file, 'utf8'));
  return [...document.querySelectorAll('section.version-kind td.version-figure')].map((td) => {
    const s = td.closest('section');
    const n = (x) => (x ? Number(x) : null);
    // The figure and its verdict stand on two lines: keep them apart in the text.
    for (const br of td.querySelectorAll('br')) br.replaceWith(' · ');
    return {
      page,
      machine: s.dataset.machine,
      config: s.dataset.config,
      product: td.dataset.product,
      version: td.dataset.version,
      ref: td.dataset.reference,
      label: td.dataset.label,
      basis: td.dataset.basis,
      ratio: n(td.dataset.ratio),
      low: n(td.dataset.low),
      high: n(td.dataset.high),
      group: td.dataset.group || null,
      outcome: td.dataset.outcome,
      text: td.textContent.replace(/\s+/g, ' ').trim(),
    };
  });
}
/** What the home page says of a kind and configuration besides its figures: "only one version...", what it left out. */
const homeSections = new Map();
{
  const { document } = parseHTML(readFileSync(join(values.site, 'index.html'), 'utf8'));
  for (const s of document.querySelectorAll('section.version-kind')) {
    const notes = [...s.querySelectorAll('p.muted')]
      .map((p) => p.textContent.replace(/\s+/g, ' ').trim())
      .filter((t) => t.startsWith('Only one version') || t.startsWith('No admitted'));
    const leftOut = s.querySelector('details.left-out summary')?.textContent.replace(/\s+/g, ' ').trim();
    homeSections.set(JSON.stringify([s.dataset.machine, s.dataset.config]), [
      ...notes,
      ...(leftOut ? [leftOut] : []),
    ]);
  }
}
const stated = [...statementsOf(join(values.site, 'index.html'), 'home')];
const versionsDir = join(values.site, 'versions');
for (const v of existsSync(versionsDir) ? readdirSync(versionsDir) : []) {
  const f = join(versionsDir, v, 'index.html');
  if (existsSync(f)) stated.push(...statementsOf(f, `versions/${v}`));
}

// --- The table: one row per machine kind, configuration, pair and label.
const rows = new Map();
const rowKey = (x) => JSON.stringify([x.machine, x.config, x.product, x.ref, x.version, x.label]);
function row(x) {
  const k = rowKey(x);
  if (!rows.has(k))
    rows.set(k, {
      machine: x.machine,
      config: x.config,
      configLabel: x.configLabel ?? null,
      product: x.product,
      ref: x.ref,
      version: x.version,
      label: x.label,
      evidence: [],
      site: [],
    });
  return rows.get(k);
}
for (const e of evidence) if (versionOrder(e.ref, e.version) < 0) row(e).evidence.push(e);
const defaultConfig = [...new Set(docs.map((d) => configOf(d)))].find((c) => c.isDefault);
for (const n of NAMED)
  for (const machine of kinds.keys())
    for (const label of LABELS) row({ ...n, machine, config: defaultConfig?.key ?? '?', label });
for (const s of stated) {
  // The site sets a version against a reference; a pair is stated either way round.
  const k = rows.has(rowKey(s)) ? s : { ...s, ref: s.version, version: s.ref };
  if (rows.has(rowKey(k))) rows.get(rowKey(k)).site.push({ ...s, inverted: k !== s });
}
// Each row also says what the pages state of each version against a common reference.
const sameSection = (r, v) =>
  stated.filter(
    (s) =>
      s.page === 'home' &&
      s.machine === r.machine &&
      s.config === r.config &&
      s.product === r.product &&
      s.version === v &&
      s.label === r.label,
  );

let contradictions = 0;
const out = [];
for (const r of [...rows.values()].sort(
  (a, b) =>
    (kinds.get(a.machine) ?? a.machine).localeCompare(kinds.get(b.machine) ?? b.machine) ||
    a.config.localeCompare(b.config) ||
    a.product.localeCompare(b.product) ||
    versionOrder(a.ref, b.ref) ||
    versionOrder(a.version, b.version) ||
    a.label.localeCompare(b.label),
)) {
  const problems = [];
  for (const s of r.site) {
    if (s.ratio === null) continue;
    const ratio = s.inverted ? 1 / s.ratio : s.ratio;
    const outcome = s.inverted ? invert(s.outcome) : s.outcome;
    for (const e of r.evidence) {
      if (e.low !== null && (ratio < e.low * 0.999 || ratio > e.high * 1.001))
        problems.push(`${s.page} states ${ratio.toFixed(2)}x, outside group ${e.group}'s interval`);
      if (outcome !== 'no verdict' && outcome !== e.verdict.outcome)
        problems.push(`${s.page} says "${outcome}", group ${e.group} allows "${e.verdict.outcome}"`);
    }
  }
  contradictions += problems.length;
  out.push({ ...r, machineLabel: kinds.get(r.machine) ?? r.machine, problems });
}

if (values.json) console.log(JSON.stringify(out, null, 2));
else print(out);
// exitCode, not exit(): exit() drops what a pipe has not yet taken of a long --json.
process.exitCode = contradictions > 0 ? 1 : 0;

function print(list) {
  const f = (x) => (x === null || x === undefined ? '—' : x.toFixed(2));
  let kind = '';
  for (const r of list) {
    if (r.machineLabel !== kind) {
      kind = r.machineLabel;
      console.log(`\n## ${kind}`);
    }
    const named = NAMED.some((n) => n.product === r.product && n.ref === r.ref && n.version === r.version);
    console.log(
      `\n${r.product} ${r.version} vs ${r.ref}, ${r.label}${named ? ' (named in issue 27)' : ''} · ${r.configLabel ?? (r.config === defaultConfig?.key ? defaultConfig.label : r.config)}`,
    );
    if (r.evidence.length === 0) console.log('  evidence: no interleaved group holds both here');
    for (const e of r.evidence)
      console.log(
        `  evidence: group ${e.group}, ${e.rounds} rounds: ${f(e.ratio)}x, 95% ${f(e.low)}–${f(e.high)} → ${e.verdict.outcome}${e.verdict.outcome === 'no verdict' ? ` (${e.verdict.rule})` : ''}`,
      );
    const home = r.site.filter((s) => s.page === 'home');
    const pages = [...new Set(r.site.filter((s) => s.page !== 'home').map((s) => s.text))];
    if (home.length === 0) {
      const a = sameSection(r, r.ref)[0];
      const b = sameSection(r, r.version)[0];
      console.log(
        `  home page: does not set them against each other${a || b ? `; against ${(a ?? b).ref}: ${r.ref} ${a ? `"${a.text}"` : 'not listed'}, ${r.version} ${b ? `"${b.text}"` : 'not listed'}` : ''}`,
      );
      const notes = homeSections.get(JSON.stringify([r.machine, r.config]));
      if (notes === undefined) console.log('  home page: no section for this kind and configuration');
      for (const t of notes ?? []) console.log(`  home page says: "${t}"`);
    }
    for (const s of home)
      console.log(`  home page: ${s.inverted ? `(${s.version} vs ${s.ref}) ` : ''}"${s.text}"`);
    if (pages.length === 0) console.log('  version pages: do not set them against each other');
    for (const t of pages) console.log(`  version pages: "${t}"`);
    for (const p of r.problems) console.log(`  CONTRADICTS: ${p}`);
  }
  console.log(
    `\n${list.length} rows; ${list.reduce((n, r) => n + r.problems.length, 0)} statements outside the evidence.`,
  );
}

function invert(outcome) {
  return outcome === 'faster' ? 'slower' : outcome === 'slower' ? 'faster' : outcome;
}

/** Numeric version order: 6.0.20 < 6.2.16 < 7.0.15; a pre-release tag sorts after its numbers. */
function versionOrder(a, b) {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (d !== 0) return d;
  }
  return 0;
}
