// node scripts/dataset-compare.mjs ORIGINAL.json REPRODUCTION.json
// Cell by cell, a member of data/results against a run of its manifest's `reproduce` command: the
// two medians, their ratio, and whether the reproduction's median lies within the original's 95%
// interval (the bootstrap CI of its trials' median). Both files are verified first. A cell whose
// workload differs (another -n, value size...) is not compared: it did not measure the same thing.
import { readFileSync } from 'node:fs';

const { verifyEnvelopeText } = await import('@redis-benchdb/result');

const [originalPath, reproductionPath] = process.argv.slice(2);
if (!originalPath || !reproductionPath) {
  console.error('usage: node scripts/dataset-compare.mjs ORIGINAL.json REPRODUCTION.json');
  process.exit(2);
}
const read = (path) => {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    console.error(`dataset-compare: cannot read ${path}: ${err.code ?? err.message}`);
    process.exit(2);
  }
  const verified = verifyEnvelopeText(text);
  if (!verified.ok) {
    console.error(`dataset-compare: ${path}: ${verified.message}`);
    process.exit(1);
  }
  return verified.result;
};
const original = read(originalPath);
const reproduction = read(reproductionPath);
const version = (r) => `${r.environment.server.product} ${r.environment.server.version}`;
console.log(`original:     ${version(original)}, ${original.startedAt}`);
console.log(`reproduction: ${version(reproduction)}, ${reproduction.startedAt}`);
if (original.environment.server.build?.archiveSha256 !== reproduction.environment.server.build?.archiveSha256)
  console.log('note: the two servers were not built from the same archive (server.build.archiveSha256)');

const byWorkload = new Map(reproduction.cells.map((c) => [c.workloadFingerprint, c]));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
let inside = 0;
let compared = 0;
for (const a of original.cells) {
  const b = byWorkload.get(a.workloadFingerprint);
  if (!b || a.incomplete || b.incomplete) {
    console.log(`${a.label}: not compared (${b ? 'incomplete' : 'not in the reproduction'})`);
    continue;
  }
  compared++;
  const within = b.opsPerSec.median >= a.opsPerSec.ci95Low && b.opsPerSec.median <= a.opsPerSec.ci95High;
  if (within) inside++;
  const ratio = b.opsPerSec.median / a.opsPerSec.median;
  console.log(
    `${a.label}: ${fmt(a.opsPerSec.median)} (95% CI ${fmt(a.opsPerSec.ci95Low)}-${fmt(a.opsPerSec.ci95High)}) vs ${fmt(b.opsPerSec.median)} ops/s, ${ratio.toFixed(3)}x, ${within ? 'within' : 'OUTSIDE'}`,
  );
}
console.log(`${inside} of ${compared} cells within the original's 95% interval`);
