// Regenerates the checked-in examples: valid/*.json (realistic result documents whose histograms,
// latency summaries, trial statistics and fingerprints are computed by packages/result, from
// seeded pseudo-random latencies), the signed envelope (make-envelope.mjs), and invalid/*.json,
// each one valid document with exactly one defect, listed in invalid/EXPECTED.json with the JSON
// path its validation error must name.
// `npx tsc -b packages/result/tsconfig.json && node schemas/examples/make-examples.mjs`
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { validateEnvelope, validateResult } from '@redis-benchdb/result';
import { adhoc } from './make/adhoc.mjs';
import { DEFECTS, ENVELOPE_DEFECTS } from './make/defects.mjs';
import { clusterRun, minimal, runGroupMember } from './make/small-runs.mjs';
import { suiteRun } from './make/suite-run.mjs';
import { ENVELOPE_FILE, makeEnvelope } from './make-envelope.mjs';

const here = (p) => new URL(p, import.meta.url);

// --- write ------------------------------------------------------------------------------------------

const write = (path, doc) => writeFileSync(here(path), `${JSON.stringify(doc, null, 2)}\n`);
const must = (outcome, what) => {
  if (!outcome.ok)
    throw new Error(`${what} does not validate: ${outcome.errors.map((e) => e.message).join('; ')}`);
};

must(validateResult(suiteRun), 'suite-run');
must(validateResult(adhoc), 'adhoc');
must(validateResult(minimal), 'minimal');
must(validateResult(runGroupMember), 'run-group-member');
must(validateResult(clusterRun), 'cluster-run');
mkdirSync(here('valid/'), { recursive: true });
write('valid/suite-run.json', suiteRun);
write('valid/adhoc-open-loop-macos.json', adhoc);
write('valid/minimal.json', minimal);
write('valid/run-group-member.json', runGroupMember);
write('valid/cluster-run.json', clusterRun);
const envelope = makeEnvelope();
must(validateEnvelope(envelope), 'envelope');
write(ENVELOPE_FILE, envelope);

// The imported-* examples are written by hand (see schemas/README.md): keep them and their entries.
mkdirSync(here('invalid/'), { recursive: true });
for (const f of readdirSync(here('invalid/')))
  if (!f.startsWith('imported-') && f !== 'EXPECTED.json') rmSync(here(`invalid/${f}`));
const previous = JSON.parse(readFileSync(here('invalid/EXPECTED.json'), 'utf8'));
const expected = Object.fromEntries(Object.entries(previous).filter(([f]) => f.startsWith('imported-')));
for (const [file, base, path, change] of DEFECTS) {
  const doc = structuredClone(base);
  change(doc);
  if (validateResult(doc).ok) throw new Error(`${file} still validates`);
  write(`invalid/${file}`, doc);
  expected[file] = path;
}
for (const [file, path, change] of ENVELOPE_DEFECTS) {
  const doc = structuredClone(envelope);
  change(doc);
  if (validateEnvelope(doc).ok) throw new Error(`${file} still validates`);
  write(`invalid/${file}`, doc);
  expected[file] = path;
}
write('invalid/EXPECTED.json', expected);
console.log(
  `wrote ${readdirSync(here('valid/')).length} valid and ${Object.keys(expected).length} invalid examples`,
);
