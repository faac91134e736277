// Every hint the runner prints works when pasted, in each way the runner can be started: the packed
// tarball through npx (with an empty home and npm cache), a global install of it, and
// `pnpm -s redis-benchdb` in the clone. And when the npx or pnpm that started a run is killed, the
// run stops its load, removes its keys and exits instead of going on as an orphan. Real
// redis-servers of the test's own; no step has a wall-clock limit (vitest's timeout is the backstop).
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LaunchedServer } from '@redis-benchdb/engine';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  client,
  describeResult,
  removeTempDirs,
  runCli,
  type SpawnOptions,
  spawnCli,
  stopServers,
  testServer,
  waitFor,
} from './helpers/cli.js';
import {
  alive,
  cloneForm,
  type Form,
  globalForm,
  nodeHeadersPrefix,
  npxTarballForm,
  packTarball,
  runnerPid,
} from './helpers/forms.js';
import { PACK_BACKSTOP_MS } from './helpers/pack.js';

let root = '';
let tgz = '';
const forms: Form[] = [];

beforeAll(async () => {
  assertBuilt();
  ({ root, tgz } = await packTarball());
  forms.push(await npxTarballForm(root, tgz), await globalForm(root, tgz), await cloneForm(root));
});

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Run a printed hint as the user would paste it: in a shell, in the same directory and environment. */
const paste = (form: Form, hint: string) => runCli([], { ...form.opts, command: ['bash', '-c', hint] });

/** The command words before the subcommand: what the hint says starts the CLI. */
function prefixOf(hint: string, sub: string): string {
  const at = hint.indexOf(` ${sub}`);
  expect(at, hint).toBeGreaterThan(0);
  return hint.slice(0, at);
}

/** A long SET run through `opts`; resolves once it has written `keys` keys, with the runner's pid. */
async function startLongRun(opts: SpawnOptions, server: LaunchedServer, redis: Redis, keys: number) {
  const args = [
    'run',
    '-p',
    String(server.port),
    '-t',
    'set',
    '-r',
    '1000000',
    '-c',
    '10',
    '--duration',
    '600',
  ];
  const cli = spawnCli(args, opts);
  await waitFor(
    async () => {
      if (cli.child.exitCode !== null) throw new Error(`the run ended early:\n${cli.stderr()}`);
      return (await redis.dbsize()) > keys && runnerPid(server.port) !== null;
    },
    () => `the run to write ${keys} keys (stderr so far: ${cli.stderr()})`,
  );
  return { cli, pid: runnerPid(server.port)! };
}

describe('every printed hint works as pasted, in each way the runner is started', () => {
  for (const name of ['a tarball through npx', 'a global install', 'pnpm -s redis-benchdb in a clone'])
    it(name, async () => {
      const form = forms.find((f) => f.name === name)!;
      const server = await testServer();
      const out = path.join(root, `${form.name.replace(/\W+/g, '-')}.json`);
      const r = await runCli(
        [
          'run',
          '-t',
          'get',
          '-n',
          '2000',
          '-c',
          '5',
          '-p',
          String(server.port),
          '-q',
          '--out',
          out,
          '--submit',
        ],
        form.opts,
      );
      expect(r.code, describeResult(r)).toBe(0);
      const kept = /^kept in (\S+)$/m.exec(r.stderr)?.[1];
      expect(kept && existsSync(kept), r.stderr).toBe(true);
      const id = path.basename(kept!, '.json');

      // Look at it: view writes a page and prints its file URL.
      const view = /^look at it: (.+ view [0-9a-f]{64})/m.exec(r.stderr)?.[1];
      expect(prefixOf(view!, 'view')).toMatch(form.prefix);
      const viewed = await paste(form, view!);
      expect(viewed.code, describeResult(viewed)).toBe(0);
      const url = /^open it in a browser: (file:\S+)$/m.exec(viewed.stdout)?.[1];
      expect(readFileSync(fileURLToPath(url!), 'utf8')).toContain(id);

      // Check the --out file.
      const verify = /check it with: (.+ verify \S+)\)/.exec(r.stderr)?.[1];
      expect(prefixOf(verify!, 'verify')).toMatch(form.prefix);
      const verified = await paste(form, verify!);
      expect(verified.code, describeResult(verified)).toBe(0);
      expect(verified.stdout).toContain('ok, signed by');

      // Send it later: URL is the word to fill in; without a service it says so and keeps the result.
      const pending = /send it later with (.+ submit --pending) --server URL$/m.exec(r.stderr)?.[1];
      expect(prefixOf(pending!, 'submit')).toMatch(form.prefix);
      const noServer = await paste(form, pending!);
      expect(noServer.code, describeResult(noServer)).toBe(2);
      expect(noServer.stderr).toContain('there is no public service yet');

      // Replace the signing key: keygen refuses, and says how.
      const keygen = await runCli(['keygen'], form.opts);
      expect(keygen.code, describeResult(keygen)).toBe(1);
      const force = /To replace it anyway: (.+ keygen --force)$/m.exec(keygen.stderr)?.[1];
      expect(prefixOf(force!, 'keygen')).toMatch(form.prefix);
      expect((await paste(form, force!)).code).toBe(0);

      // Remove what a stopped cleanup left: a second Ctrl-C to the runner while writes are paused.
      const redis = await client(server);
      const { cli, pid } = await startLongRun(form.opts, server, redis, 10_000);
      await redis.call('CLIENT', 'PAUSE', '60000', 'WRITE');
      process.kill(pid, 'SIGINT');
      await waitFor(() => cli.stderr().includes('interrupted (SIGINT)'), 'the first interrupt message');
      process.kill(pid, 'SIGINT');
      await waitFor(() => cli.stderr().includes('stopping the cleanup'), 'the second interrupt message');
      await redis.call('CLIENT', 'UNPAUSE');
      await cli.done;
      const cleanup = /remove them with: (.+ cleanup .* --yes)$/m.exec(cli.stderr())?.[1];
      expect(prefixOf(cleanup!, 'cleanup'), cli.stderr()).toMatch(form.prefix);
      expect(await redis.dbsize()).toBeGreaterThan(0);
      const cleaned = await paste(form, cleanup!);
      expect(cleaned.code, describeResult(cleaned)).toBe(0);
      expect(await redis.dbsize()).toBe(0);
      redis.disconnect();
    });

  // npx installs better-sqlite3 from the registry here. The backstop is the pack tests'.
  it('what needs SQLite says how to add it: under npx the printed command fetches it and works', {
    timeout: PACK_BACKSTOP_MS,
  }, async () => {
    const npx = forms.find((f) => f.name === 'a tarball through npx')!;
    const r = await runCli(['export', '--jsonl'], npx.opts);
    expect(r.code, describeResult(r)).toBe(1);
    const hint = /run it with better-sqlite3 beside it: (.+ export --jsonl) \.\.\.$/m.exec(r.stderr)?.[1];
    expect(hint, r.stderr).toBe(`npx -y -p ${tgz} -p better-sqlite3 redis-benchdb export --jsonl`);
    // better-sqlite3 13 carries its binaries, but npm still runs node-gyp for its binding.gyp (a target
    // that builds nothing when a binary fits), and node-gyp wants headers: only the npm registry is
    // reachable here, so it is pointed at the running Node's own.
    const nodedir = nodeHeadersPrefix();
    const env = nodedir ? { ...npx.opts.env, npm_config_nodedir: nodedir } : npx.opts.env;
    const exported = await runCli([], { ...npx.opts, env, command: ['bash', '-c', hint!] });
    // better-sqlite3 is there now; what is missing is a database, which nothing has made yet.
    expect(exported.stderr, describeResult(exported)).not.toContain('better-sqlite3 (a native module');
    expect(exported.stderr).toContain('export --jsonl reads the local database, and there is none at');
    expect(exported.code).toBe(1);

    const global = forms.find((f) => f.name === 'a global install')!;
    const g = await runCli(['export', '--jsonl'], global.opts);
    expect(g.stderr).toContain(
      'install it beside the global redis-benchdb (npm install -g better-sqlite3), then run redis-benchdb export --jsonl ... again',
    );
  });
});

describe('no orphan: the run ends with the package runner that started it', () => {
  for (const name of ['a tarball through npx', 'pnpm -s redis-benchdb in a clone'])
    it(`${name}: SIGTERM to the launcher stops the load, removes the keys and ends the runner`, async () => {
      const form = forms.find((f) => f.name === name)!;
      const server = await testServer();
      const redis = await client(server);
      const { cli, pid } = await startLongRun(form.opts, server, redis, 10_000);
      cli.child.kill('SIGTERM'); // npx or pnpm only: the runner is its grandchild and gets no signal
      await waitFor(
        () => !alive(pid),
        () => `the runner (pid ${pid}) to exit; stderr: ${cli.stderr()}`,
      );
      await cli.done; // its output pipes close with the runner
      expect(cli.stderr()).toContain('the process that started this run (npx, npm or pnpm) has ended');
      expect(await redis.dbsize()).toBe(0);
      // No load: the only client left is this test's.
      const clients = String(await redis.call('CLIENT', 'LIST'))
        .trim()
        .split('\n');
      expect(clients, clients.join('\n')).toHaveLength(1);
      redis.disconnect();
    });
});
