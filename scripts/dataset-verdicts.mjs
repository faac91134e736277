// The verdicts of each run group of a dataset directory, cell by cell, against the group's first
// member (the oldest server), by the site's rule for an interleaved group: paired per-round ratios, a
// verdict only where the 95% interval excludes 1 and neither cell carries a warning. Prints the
// cells that differ and the counts, group by group (members are paired only within their group).
//   node scripts/dataset-verdicts.mjs data/results/amd-epyc-2cpu-kvm [RUN-GROUP-ID]
import { readdirSync, readFileSync } from 'node:fs';
import { noVerdictWarnings, pairedCellRatio, pairedVerdict } from '@redis-benchdb/result';

const [dir, only] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/dataset-verdicts.mjs data/results/<machine> [RUN-GROUP-ID]');
  process.exit(2);
}
const groups = new Map();
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
  .sort()) {
  const doc = JSON.parse(JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')).payload);
  const id = doc.runGroup?.id ?? f;
  if (!only || id === only) groups.set(id, [...(groups.get(id) ?? []), doc]);
}
if (groups.size === 0) {
  console.error(`dataset-verdicts: no results${only ? ` of run group ${only}` : ''} in ${dir}`);
  process.exit(2);
}
const name = (d) =>
  `${d.environment.server.product ?? ''} ${d.environment.server.version}${d.environment.server.build?.tag ? ` (${d.environment.server.build.tag})` : ''}`;
const flags = (doc, cell) =>
  noVerdictWarnings(doc.warnings, {
    label: cell.label,
    unstable: cell.unstable,
    clientBound: cell.saturation.clientBound,
  });
for (const [id, docs] of groups) {
  docs.sort((a, b) => a.runGroup.index - b.runGroup.index);
  console.log(`run group ${id}: ${docs.length} servers, ${docs[0].cells.length} cells`);
  verdictsOf(docs);
}

function verdictsOf(docs) {
  const base = docs[0];
  let verdicts = 0,
    judged = 0,
    total = 0;
  for (const c0 of base.cells) {
    const row = [];
    for (const d of docs.slice(1)) {
      const c = d.cells.find((x) => x.label === c0.label);
      if (!c) continue;
      const p = pairedCellRatio(c0, c);
      total++;
      const v = pairedVerdict(p, flags(base, c0), flags(d, c));
      if (v.rule !== 'flagged') judged++;
      if (v.outcome !== 'no verdict') {
        verdicts++;
        row.push(
          `${name(d)} ${v.outcome} ${p.ratio.toFixed(2)}x [${p.ci95Low.toFixed(2)}-${p.ci95High.toFixed(2)}]`,
        );
      }
    }
    const fl = flags(base, c0);
    console.log(
      `${c0.label} (base ${Math.round(c0.opsPerSec.median)}${fl.length ? ` ${fl.join(',')}` : ''}): ${row.join('; ') || '-'}`,
    );
  }
  console.log({ total, judged, verdicts, baseName: name(base) });
}
