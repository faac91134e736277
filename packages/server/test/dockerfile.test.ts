// The container recipe (Dockerfile at the repository's root), as far as this machine can test it
// without docker: its CMD, run as written from the repository (the image's WORKDIR is a copy of it)
// with the /data volume in a temp directory, starts the publishing service on the volume's paths, and
// its HEALTHCHECK, run as written, passes against it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FAKE_BUILD = fileURLToPath(new URL('fake-site-build.mjs', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The JSON array of the last `INSTRUCTION [...]` line (exec form). */
function execForm(instruction: string): string[] {
  const lines = dockerfile.split('\n').filter((l) => l.startsWith(`${instruction} `));
  const line = lines.at(-1)!;
  return JSON.parse(line.slice(line.indexOf('[')));
}

describe('the Dockerfile', () => {
  const volume = /^VOLUME (\S+)$/m.exec(dockerfile)?.[1];
  const cmd = execForm('CMD');
  const flag = (name: string) => cmd[cmd.indexOf(name) + 1]!;

  it('keeps the database, the site and the backups on the volume, and names files that exist', () => {
    expect(volume).toBe('/data');
    for (const name of ['--db', '--site-dir', '--backup-dir'])
      expect(flag(name).startsWith(`${volume}/`)).toBe(true);
    expect(cmd[0]).toBe('node');
    expect(existsSync(join(ROOT, cmd[1]!))).toBe(true);
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^COPY \. \.$/m);
  });

  it('its CMD starts the publishing service on the volume, and its HEALTHCHECK passes', async () => {
    const data = mkdtempSync(join(tmpdir(), 'rbdb-docker-data-'));
    dirs.push(data);
    // As written, but: the volume is a temp directory, a free port on loopback, and the stand-in site
    // build (the real one is the CLI's end-to-end test).
    const argv = cmd
      .slice(1)
      .map((a) => a.replace(/^\/data(?=\/|$)/, data))
      .map((a, i, all) => (all[i - 1] === '--port' ? '0' : all[i - 1] === '--host' ? '127.0.0.1' : a));
    const child = spawn(process.execPath, [...argv, '--site-build', `node ${FAKE_BUILD}`], {
      cwd: ROOT,
      env: { ...process.env, FAKE_BUILD_LOG: join(data, 'builds.log') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          const m = /^listening on (\S+)$/.exec(line);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
      });
      const port = new URL(url).port;
      const health = execForm('HEALTHCHECK');
      expect(health[0]).toBe('node');
      const check = spawnSync(
        process.execPath,
        health.slice(1).map((a) => a.replaceAll(':8080', `:${port}`)),
        {
          encoding: 'utf8',
        },
      );
      expect(check.status, check.stderr).toBe(0);
      expect(existsSync(join(data, 'benchdb.sqlite'))).toBe(true);
      for (;;) {
        const h = (await (await fetch(`${url}/api/v1/health`)).json()) as { site: { state: string } };
        if (h.site.state === 'ready') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(existsSync(join(data, 'site/current/index.html'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
