import { type ResultV1, spreadOf, spreadText } from '@redis-benchdb/result';

/** What the page says about the file beside the result itself. */
export interface PageSource {
  id: string;
  /** The signing key's fingerprint, and whether the signature checked out. */
  signedBy: string | null;
  signatureOk: boolean | null;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const ms = (us: number) => (us / 1000).toFixed(3);
const ops = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * One result as a standalone HTML page: no script, no stylesheet to fetch, so it opens from a file
 * anywhere. A summary of what ran where, one row per cell (ops/s, p50/p99/p99.9 in ms, warnings),
 * and the run's own warnings. The site shows far more; this is the look a runner alone can give.
 */
export function resultPage(doc: ResultV1, src: PageSource): string {
  const s = doc.environment.server;
  const title = `${s.product} ${s.version ?? '?'}: ${doc.cells.length} cell${doc.cells.length === 1 ? '' : 's'}, ${doc.startedAt}`;
  const byCell = new Map<string, string[]>();
  for (const w of doc.warnings) if (w.cell) byCell.set(w.cell, [...(byCell.get(w.cell) ?? []), w.code]);
  const rows = doc.cells.map((c) => {
    // "±" is half the trials' spread (packages/result spread.ts: their range below 6 trials, the
    // median's 95% interval from 6), computed from the trials, never the CV.
    const { median } = c.opsPerSec;
    const trials = c.trials.map((t) => t.opsPerSec);
    const s = trials.length > 1 ? spreadOf(trials) : null;
    const spread =
      s && median > 0
        ? ` ±${(((s.high - s.low) / 2 / median) * 100).toFixed(1)}% <small>(${esc(spreadText(s, 'trial'))})</small>`
        : '';
    const l = c.latencyUs;
    return `<tr><th scope="row">${esc(c.label)}</th><td>${ops(c.opsPerSec.median)}${spread}</td><td>${ms(l.p50Us)}</td><td>${ms(l.p99Us)}</td><td>${ms(l.p999Us)}</td><td>${esc((byCell.get(c.label) ?? []).join(', '))}${c.incomplete ? ' incomplete' : ''}</td></tr>`;
  });
  const runWarnings = doc.warnings
    .filter((w) => w.cell === null)
    .map((w) => `<li><b>${esc(w.code)}</b>: ${esc(w.message)}</li>`);
  const signed =
    src.signedBy === null
      ? 'not signed (a --json document)'
      : `signed by ${esc(src.signedBy)}${src.signatureOk ? ' (signature checked)' : ' (signature does NOT check out)'}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse}th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}
th[scope=row],thead th:first-child,td:last-child{text-align:left}code{font-size:90%}</style></head>
<body>
<h1>${esc(title)}</h1>
<p>Result <code>${esc(src.id)}</code>, ${signed}. ${doc.suite ? `Suite ${esc(doc.suite.id)}/${esc(doc.suite.profile)}; ` : ''}redis-benchdb ${esc(doc.runner.version)}; ${esc(doc.startedAt)} to ${esc(doc.finishedAt)}${doc.incomplete ? '; <b>incomplete</b>' : ''}.</p>
<table><thead><tr><th>cell</th><th>ops/s (median, ± half the trials' spread)</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>warnings</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
${runWarnings.length ? `<h2>Warnings</h2><ul>${runWarnings.join('')}</ul>` : ''}
</body></html>
`;
}
