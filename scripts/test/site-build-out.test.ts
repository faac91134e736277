import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOutFolder, markOutFolder, SITE_MARKER } from '../lib/out-folder.mjs';

const script = fileURLToPath(new URL('../site-build.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rbdb-site-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function siteBuild(...argv: string[]) {
  const env = { ...process.env, XDG_STATE_HOME: join(dir, 'state') };
  return spawnSync(process.execPath, [script, ...argv], { encoding: 'utf8', env });
}

describe('site:build --out', () => {
  it('refuses a folder holding files it did not make, with exit 2, and keeps every file', () => {
    const out = join(dir, 'notes');
    mkdirSync(out);
    writeFileSync(join(out, 'thesis.txt'), 'three years of work\n');
    writeFileSync(join(out, 'notes.txt'), 'more\n');
    // A leftover that looks like a killed build's, but holds no marker: not the build's to remove.
    mkdirSync(join(dir, '.notes.old-999999'));
    writeFileSync(join(dir, '.notes.old-999999', 'keep.txt'), 'mine\n');
    const r = siteBuild('--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--out ${out} is not empty`);
    expect(r.stderr).toContain(SITE_MARKER);
    expect(readdirSync(out).sort()).toEqual(['notes.txt', 'thesis.txt']);
    expect(readFileSync(join(out, 'thesis.txt'), 'utf8')).toBe('three years of work\n');
    expect(readdirSync(join(dir, '.notes.old-999999'))).toEqual(['keep.txt']);
    // Nothing was built beside it either.
    expect(readdirSync(dir).sort()).toEqual(['.notes.old-999999', 'notes']);
  });

  it('refuses a file named as the folder', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = siteBuild('--out', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('takes a new folder, an empty one, and one its marker says it built', () => {
    expect(() => checkOutFolder(join(dir, 'absent'))).not.toThrow();
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(() => checkOutFolder(empty)).not.toThrow();
    const built = join(dir, 'built');
    mkdirSync(built);
    writeFileSync(join(built, 'index.html'), '<p>');
    expect(() => checkOutFolder(built)).toThrow(expect.objectContaining({ code: 'ERR_OUT_NOT_OURS' }));
    markOutFolder(built);
    expect(() => checkOutFolder(built)).not.toThrow();
  });
});
