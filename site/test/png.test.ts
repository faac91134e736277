import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderPngs } from '../integration/png.mjs';

const dir = mkdtempSync(join(tmpdir(), 'rbdb-png-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const svg = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text x="10" y="30">${text}</text></svg>`;

describe('renderPngs', () => {
  it('draws every chart it can and names the one it cannot, instead of failing them all', async () => {
    // A BEL is not an XML character: resvg refuses the whole file, as it did for a stored CPU model.
    writeFileSync(join(dir, 'bad.svg'), svg('Intel\u0007 Xeon'));
    writeFileSync(join(dir, 'good.svg'), svg('Intel Xeon'));
    const jobs = ['bad', 'good'].map((n) => ({
      svgFile: join(dir, `${n}.svg`),
      pngFile: join(dir, `${n}.png`),
      width: 200,
    }));
    const out = await renderPngs(jobs, join(dir, 'cache'));
    expect(out.rendered).toBe(1);
    expect(out.failed).toEqual([{ svgFile: join(dir, 'bad.svg'), error: expect.any(String) }]);
    expect(out.failed[0].error.length).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'bad.png'))).toBe(false);
    expect(readFileSync(join(dir, 'good.png')).subarray(1, 4).toString()).toBe('PNG');
  });
});
