// PngOnRequest on its own: real resvg on a worker thread, real files. The HTTP side (a chart's PNG
// through the publishing service) is in publish.test.ts, and real charts' pixels in site/test/embed-pixels.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// From dist: the drawing thread runs db's compiled png-worker.js.
import { PngOnRequest } from '../dist/publish/png-on-request.js';

const dir = mkdtempSync(join(tmpdir(), 'rbdb-png-on-request-'));
const root = join(dir, 'site');
const outside = join(dir, 'outside');
const renderers: PngOnRequest[] = [];
afterAll(async () => {
  await Promise.all(renderers.map((r) => r.close()));
  rmSync(dir, { recursive: true, force: true });
});

const svg = (colour: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="${colour}"/></svg>`;

function renderer(cache: string, o: { maxCacheBytes?: number; maxQueued?: number } = {}) {
  const r = new PngOnRequest({
    cacheDir: join(dir, cache),
    maxCacheBytes: o.maxCacheBytes ?? 1e9,
    maxQueued: o.maxQueued ?? 8,
    log: () => {},
  });
  renderers.push(r);
  return r;
}

mkdirSync(join(root, 'charts'), { recursive: true });
mkdirSync(outside);
for (const c of ['red', 'green', 'blue']) writeFileSync(join(root, 'charts', `${c}.svg`), svg(c));
writeFileSync(join(outside, 'secret.svg'), svg('black'));
symlinkSync(join(outside, 'secret.svg'), join(root, 'charts', 'link.svg'));
symlinkSync(outside, join(root, 'out'));
writeFileSync(join(root, 'charts', 'huge.svg'), `${svg('red')}<!--${'x'.repeat(3 * 1024 * 1024)}-->`);
writeFileSync(join(root, 'charts', 'bad.svg'), svg('red').replace('<rect', '<rect\u0007'));

describe('PngOnRequest', () => {
  it('draws a PNG from the SVG beside it, once: the second ask is the cached file', async () => {
    const r = renderer('cache-a');
    const name = await r.png(root, '/charts/red.png');
    expect(name).toMatch(/^[0-9a-f]{64}\.png$/);
    expect(await r.png(root, '/charts/red.png')).toBe(name);
    expect(readdirSync(r.cacheDir)).toEqual([name]);
  });

  it('draws nothing outside the site: links out, odd paths, missing or oversized SVGs', async () => {
    const r = renderer('cache-b');
    for (const path of [
      '/charts/link.png',
      '/out/secret.png',
      '/charts/../../outside/secret.png',
      '/.charts/red.png',
      '/charts/red.svg',
      '/charts/none.png',
      '/charts/huge.png',
    ])
      expect(await r.png(root, path), path).toBeNull();
    expect(existsSync(r.cacheDir) ? readdirSync(r.cacheDir) : []).toEqual([]);
  });

  it('keeps the cache under its bound, the least recently asked for going first', async () => {
    const r = renderer('cache-c', { maxCacheBytes: 1 });
    const red = await r.png(root, '/charts/red.png');
    const green = await r.png(root, '/charts/green.png');
    expect(readdirSync(r.cacheDir)).toEqual([green]);
    expect(red).not.toBe(green);
  });

  it('refuses with 503 past its queue, and says why a chart cannot be drawn', async () => {
    await expect(renderer('cache-d', { maxQueued: 0 }).png(root, '/charts/blue.png')).rejects.toMatchObject({
      status: 503,
      retryAfterSec: expect.any(Number),
      message: expect.stringContaining('/charts/blue.svg'),
    });
    await expect(renderer('cache-e').png(root, '/charts/bad.png')).rejects.toMatchObject({
      status: 500,
      code: 'PNG_FAILED',
    });
  });
});
