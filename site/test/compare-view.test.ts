import { describe, expect, it } from 'vitest';
import { compareResults } from '../src/lib/compare/compare.js';
import { comparisonView } from '../src/lib/compare/compare-view.js';
import { toHtml } from '../src/lib/text/tree.js';
import { compareCell as cell, compareInput as input } from './compare-inputs.js';

// The one view both the group page (HTML at build) and the compare page (DOM in the browser) draw.

const links = { result: (id: string) => `/results/${id}/`, methodology: '/methodology/' };

describe('the comparison view', () => {
  it('shows each verdict with the rule that gave it, and links each warning code to its meaning', () => {
    const c = compareResults([
      input('a', 'base', [cell('get', 100), cell('set', 100)]),
      input('b', 'other', [cell('get', 200, ['BUSY_HOST']), cell('set', 200)]),
    ]);
    const html = comparisonView(c, links).map(toHtml).join('');
    expect(html).toContain(
      '<span class="verdict noise" data-rule="flagged">no verdict</span><span class="verdict-rule"><a href="/methodology/#warning-BUSY_HOST"><code>BUSY_HOST</code></a> in this result&#39;s cell</span>',
    );
    expect(html).toMatch(
      /<span class="verdict faster" data-rule="beyond-noise">faster<\/span><span class="verdict-rule">difference \+100\.0% beyond between-run noise/,
    );
    expect(html).toContain('<a href="/methodology/">How figures are measured and judged</a>');
  });

  it('escapes what submitters wrote, in text and attributes, and cuts it long', () => {
    const hostile = '<img src=x onerror=alert(1)>"';
    const c = compareResults([
      input('a', hostile, [cell('get', 1)]),
      input('b', 'x'.repeat(200), [cell('get', 1)]),
    ]);
    const html = comparisonView(c, links).map(toHtml).join('');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;');
    expect(html).toContain(`<bdi class="submitted" title="${'x'.repeat(200)}">${'x'.repeat(119)}…</bdi>`);
  });
});
