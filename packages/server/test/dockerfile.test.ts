// The container recipe (Dockerfile and .dockerignore at the repository's root), as far as this machine
// can test it: there is no docker daemon here and no registry for base images, so the image is never
// built. What is tested instead: the build context as `COPY . .` would send it (.dockerignore applied)
// is copied to a temp directory standing for /app, the build stage's own RUN steps are run there as
// written, and the runtime stage's CMD (with its ENV) starts the publishing service from that copy with
// /data in a temp directory; its HEALTHCHECK, as written, passes against it. So a recipe whose install
// or build fails from a clean context, whose .dockerignore leaves out a file the service needs, or
// whose CMD names a path the build does not make, fails here. Not tested: the base image, the apt-get
// and corepack steps (root and the base image's own business; the pnpm version corepack would pick is
// checked against the one used here), and compiling better-sqlite3 in the image (here pnpm reuses
// the build in its store; docs/DEPLOY.md says so).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerfileStages, dockerignore, envPairs, execForm, type Stage } from './dockerfile.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FAKE_BUILD = fileURLToPath(new URL('fake-site-build.mjs', import.meta.url));
const stages = dockerfileStages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const ignored = dockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const [build, runtime] = stages as [Stage, Stage];
const last = (stage: Stage, instruction: string) =>
  stage.steps.filter((s) => s.instruction === instruction).at(-1)?.args;

/**
 * `sh -c command`, without blocking the event loop (an install and a build take minutes on a busy
 * machine, and vitest's worker must keep answering meanwhile): its exit status and its output.
 */
function shell(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ status: number | null; output: string }>((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}

describe('the Dockerfile', () => {
  const cmd = execForm(last(runtime, 'CMD')!);
  const flag = (name: string) => cmd[cmd.indexOf(name) + 1]!;

  it('builds in one stage and runs the copied /app in the next, with the database, site and backups on the volume', () => {
    expect(stages).toHaveLength(2);
    expect(runtime.steps).toContainEqual({ instruction: 'COPY', args: '--from=build /app /app' });
    expect(last(build, 'WORKDIR')).toBe('/app');
    expect(last(runtime, 'WORKDIR')).toBe('/app');
    const volume = last(runtime, 'VOLUME');
    expect(volume).toBe('/data');
    for (const name of ['--db', '--site-dir', '--backup-dir'])
      expect(flag(name).startsWith(`${volume}/`)).toBe(true);
    expect(flag('--port')).toBe(last(runtime, 'EXPOSE'));
    // What a clone holds but the image must not take from the host: built files, installs, databases.
    for (const path of [
      'node_modules',
      'packages/db/node_modules',
      'packages/server/dist',
      'data/x.sqlite',
      '.git',
    ])
      expect(ignored(path), path).toBe(true);
  });

  // A pnpm install and a whole build, as the Dockerfile runs them: minutes on a loaded host, so 600 s
  // of its own over the tier's minute (vitest.config.ts).
  it('its build steps, run as written on the build context, install and build; its CMD serves from the result, on the volume, and its HEALTHCHECK passes', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rbdb-docker-'));
    dirs.push(tmp);
    const app = join(tmp, 'app');
    const data = join(tmp, 'data');
    mkdirSync(data);
    // COPY . . : the context without what .dockerignore leaves out.
    cpSync(ROOT, app, { recursive: true, filter: (src) => !ignored(relative(ROOT, src)) });
    expect(existsSync(join(app, 'node_modules'))).toBe(false);
    expect(existsSync(join(app, 'packages/server/dist'))).toBe(false);

    // The image build downloads the packages; here they come from the store this clone was installed
    // from (under .ci/run's fresh home, the default store would be empty, and fill from the registry).
    const storeDir = /^storeDir: (.+)$/m.exec(
      readFileSync(join(ROOT, 'node_modules/.modules.yaml'), 'utf8'),
    )?.[1];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...(storeDir ? { npm_config_store_dir: storeDir } : {}),
    };
    for (const { instruction, args } of build.steps) {
      if (instruction === 'WORKDIR' || instruction === 'COPY') continue; // /app, and the copy above
      if (instruction === 'ENV') for (const [k, v] of envPairs(args)) env[k] = v;
      else if (instruction !== 'RUN')
        throw new Error(`the test does not know ${instruction} in the build stage`);
      else if (/^apt-get /.test(args))
        continue; // the base image's packages, as root
      else if (args === 'corepack enable') {
        // Corepack would run the pnpm that package.json's packageManager names: the test uses that one.
        const wanted = /^pnpm@(.+)$/.exec(
          JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).packageManager,
        )?.[1];
        expect(spawnSync('pnpm', ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe(wanted);
      } else {
        const run = await shell(args, app, env);
        expect(run.status, `RUN ${args}:\n${run.output.slice(-4000)}`).toBe(0);
      }
    }
    const runEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const s of runtime.steps.filter((s) => s.instruction === 'ENV'))
      for (const [k, v] of envPairs(s.args)) runEnv[k] = v.replace(/^\/data(?=\/|$)/, data);
    // The service's default site build is the clone's own: the context must carry it.
    expect(existsSync(join(app, 'scripts/site-build.mjs'))).toBe(true);

    // As written, but: the volume is a temp directory, a free port on loopback, and the stand-in site
    // build (the real one is the CLI's end-to-end test).
    const argv = cmd
      .slice(1)
      .map((a) => a.replace(/^\/data(?=\/|$)/, data))
      .map((a, i, all) => (all[i - 1] === '--port' ? '0' : all[i - 1] === '--host' ? '127.0.0.1' : a));
    expect(cmd[0]).toBe('node');
    const child = spawn(process.execPath, [...argv, '--site-build', `node ${FAKE_BUILD}`], {
      cwd: app,
      env: { ...runEnv, FAKE_BUILD_LOG: join(tmp, 'builds.log') },
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
      const health = execForm(last(runtime, 'HEALTHCHECK')!);
      expect(health[0]).toBe('node');
      const check = spawnSync(
        process.execPath,
        health.slice(1).map((a) => a.replaceAll(`:${flag('--port')}`, `:${port}`)),
        { encoding: 'utf8' },
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
  }, 600_000);
});
