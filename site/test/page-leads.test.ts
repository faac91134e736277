import { readFileSync } from 'node:fs';
import type { ResultV1 } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { compareResults } from '../src/lib/compare/compare.js';
import { comparisonSummary, tally } from '../src/lib/compare/compare-summary.js';
import type { ResultView } from '../src/lib/model/model.js';
import { leftOutLine, resultLead } from '../src/lib/results/result-lead.js';
import { toHtml } from '../src/lib/text/tree.js';
import { compareCell as cell, compareInput as input } from './compare-inputs.js';

// Issue 28: what a result page and the compare page say first, on plain inputs.

const root = new URL('../../', import.meta.url);
const example = (f: string) =>
  JSON.parse(readFileSync(new URL(`schemas/examples/valid/${f}`, root), 'utf8')) as ResultV1;

/** The parts of a result's view the lead reads: its kind, signature, cells and signed document. */
const view = (doc: ResultV1, o: Partial<ResultView> = {}): ResultView =>
  ({
    kind: 'signed',
    signature: { status: 'verified', keyFingerprint: null, signer: null, detail: null },
    raw: JSON.stringify({ payload: JSON.stringify(doc) }),
    cells: doc.cells.map((c) => ({ label: c.label, slo: null, unstable: c.unstable })),
    ...o,
  }) as unknown as ResultView;

describe("a result page's lead", () => {
  it('leads with GET and SET, every cell admitted: may be ranked', () => {
    const lead = resultLead(view(example('suite-run.json')));
    expect(lead.cells.map((c) => c.label)).toEqual(['GET', 'SET']);
    expect(lead).toMatchObject({ standing: 'all', admitted: 2, total: 2, leftOut: [], why: null });
  });

  it("gives the admission rule's reasons, as the CLI reads them from the signed document", () => {
    const lead = resultLead(view(example('interference-drift-env-v2.json')));
    expect(lead.standing).toBe('none');
    expect(lead.cells).toEqual([{ label: 'SET', reasons: ['BUSY_HOST', 'DRIFT'] }]);
    expect(lead.leftOut.map((l) => leftOutLine(l))).toEqual(['busy host (SET)', 'drift (SET)']);
    const many = { reason: 'DRIFT' as const, text: 'drift', cells: ['GET', 'SET', 'INCR', 'LPUSH'] };
    expect(leftOutLine(many, 10)).toBe('drift (4 cells)');
    expect(leftOutLine(many, 4)).toBe('drift (every cell)');
  });

  it('ranks an imported result or one whose signature failed nowhere, and says why', () => {
    const doc = example('suite-run.json');
    expect(resultLead(view(doc, { kind: 'imported' }))).toMatchObject({
      standing: 'none',
      why: 'it is imported, and too much of its workload is unknown to match it exactly',
    });
    const failed = resultLead(
      view(doc, { signature: { status: 'failed', keyFingerprint: null, signer: null, detail: 'bad' } }),
    );
    expect(failed).toMatchObject({ standing: 'none', admitted: 0, why: 'its signature failed at build' });
  });
});

describe("the compare page's verdict", () => {
  it('counts faster, slower and no verdict from the cell table, and names GET and SET first', () => {
    const c = compareResults([
      input('a', 'base', [cell('get', 100), cell('set', 100), cell('incr', 100)]),
      input('b', 'other', [cell('get', 200), cell('set', 50), cell('incr', 300, ['BUSY_HOST'])]),
    ]);
    expect(tally(c, 1)).toEqual({ faster: 1, slower: 1, none: 1, medianRatio: 2, sharedReason: null });
    const html = comparisonSummary(c, (id) => `/results/${id}/`)
      .map(toHtml)
      .join('');
    expect(html).toContain('<strong>1 faster, 1 slower</strong>, 1 without a verdict, of 3 cells');
    expect(html).toContain(
      '<span class="key-ratio" data-cell="GET">GET <strong>2.00×</strong> <span class="verdict faster">faster</span></span>',
    );
  });

  it('says once why no cell has a verdict when the machine kinds differ', () => {
    const c = compareResults([
      input('a', 'base', [cell('get', 100)]),
      input('b', 'other', [cell('get', 50)], 'kind B'),
    ]);
    expect(tally(c, 1).sharedReason).toBe('machine differs');
  });
});
