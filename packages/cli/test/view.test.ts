import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, removeTempDirs, runCli, stopServers, tempDir, testServer } from './helpers/cli.js';

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

/** The page `view` wrote, read back through the file URL it printed (what a user opens). */
async function page(stdout: string): Promise<string> {
  const url = /^open it in a browser: (file:\S+)$/m.exec(stdout)?.[1];
  expect(url, stdout).toBeDefined();
  return readFile(fileURLToPath(url!), 'utf8');
}

describe('view', () => {
  it('renders a kept result by id prefix, a run --out file, and a --json document; says what is wrong otherwise', async () => {
    const server = await testServer();
    const configDir = await tempDir();
    const dir = await tempDir();
    const out = path.join(dir, 'r.json');
    const r = await runCli(
      ['run', '-p', String(server.port), '-t', 'set', '-n', '1000', '--out', out, '--json'],
      {
        configDir,
      },
    );
    expect(r.code, describeResult(r)).toBe(0);
    const id = /^kept in \S+\/([0-9a-f]{64})\.json$/m.exec(r.stderr)?.[1];
    expect(id, r.stderr).toBeDefined();

    const byId = await runCli(['view', id!.slice(0, 8)], { configDir });
    expect(byId.code, describeResult(byId)).toBe(0);
    const html = await page(byId.stdout);
    expect(html).toContain(id);
    expect(html).toContain('<th scope="row">SET</th>');
    expect(html).toContain('signature checked');
    // "±" is the trials' spread, not the CV, and a few trials' range is never called a 95% interval.
    expect(html).toContain("± half the trials' spread");
    expect(html).not.toContain('95%');
    expect(html).not.toContain('CV');

    const byFile = await runCli(['view', out, '--out', path.join(dir, 'p.html')], { configDir });
    expect(byFile.stdout).toContain(`wrote ${path.join(dir, 'p.html')}`);
    expect(await page(byFile.stdout)).toContain(id);

    const bare = path.join(dir, 'doc.json');
    await writeFile(bare, r.stdout);
    const byDoc = await runCli(['view', bare], { configDir });
    expect(byDoc.code, describeResult(byDoc)).toBe(0);
    expect(await page(byDoc.stdout)).toContain('not signed');

    // A tampered file is still shown, and the page says its signature does not check out.
    const env = JSON.parse(await readFile(out, 'utf8')) as { payload: string };
    env.payload = env.payload.replace('"SET"', '"GET"');
    await writeFile(path.join(dir, 'bad.json'), JSON.stringify(env));
    const bad = await runCli(['view', path.join(dir, 'bad.json')], { configDir });
    expect(await page(bad.stdout)).toContain('does NOT check out');

    const missing = await runCli(['view', 'abcdef12'], { configDir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no kept result abcdef12 in \S+results: give the id that run printed/);
    const none = await runCli(['view'], { configDir });
    expect(none.code).toBe(2);
  });
});
