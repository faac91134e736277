import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  closedPort,
  defaultConfigDir,
  describeResult,
  runCli,
  spawnCli,
  tempDir,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// The spool: what `run --submit` and `submit` could not deliver waits beside the local database
// (--db), one entry per result (named by its content id), until `submit --pending` sends each to
// the service it was meant for. Real redis-server, real service processes, the built CLI.

cliFileHooks();

/** The service's own bin (`redis-benchdb-server`, built by `pnpm build`). */
const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/** The ingest service on `port`, on a fresh database, as a process of its own. */
async function serve(port: number) {
  const db = path.join(await tempDir(), 'service.sqlite');
  const proc = spawnCli(['--db', db, '--port', String(port)], {
    command: [process.execPath, SERVER_MAIN],
  });
  const listening = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
  await waitFor(
    () => listening.test(proc.stdout()),
    () => proc.stderr(),
  );
  const url = listening.exec(proc.stdout())![1]!;
  return {
    url,
    async has(id: string): Promise<boolean> {
      return (await fetch(`${url}/api/v1/results/${id}`)).status === 200;
    },
    async count(): Promise<number> {
      return ((await (await fetch(`${url}/api/v1/health`)).json()) as { results: number }).results;
    },
    async stop() {
      proc.child.kill('SIGTERM');
      await proc.done;
    },
  };
}

/** The result id (content id) of a signed file: the hex SHA-256 of its payload. */
async function idOf(file: string): Promise<string> {
  const payload = (JSON.parse(readFileSync(file, 'utf8')) as { payload: string }).payload;
  return createHash('sha256').update(payload, 'utf8').digest('hex');
}

const entries = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();

/** POSIX shell words, as the hints quote them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
    words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

describe('the spool', () => {
  it('keeps one entry per result beside --db, and submit --pending sends each to its own service', async () => {
    const server = await testServer();
    const work = await tempDir();
    // Two different results, each in a file named result.json.
    const files: string[] = [];
    for (const name of ['a', 'b']) {
      await mkdir(path.join(work, name));
      const file = path.join(work, name, 'result.json');
      const r = await runCli([
        'run',
        '-p',
        String(server.port),
        '-t',
        'set',
        '-n',
        '1000',
        '--no-store',
        '--out',
        file,
      ]);
      expect(r.code, describeResult(r)).toBe(0);
      files.push(file);
    }
    const [a, b] = files as [string, string];
    expect(await idOf(a)).not.toBe(await idOf(b));

    // Two services, both down for now.
    const portA = await closedPort();
    const portB = await closedPort();
    const urlA = `http://127.0.0.1:${portA}`;
    const urlB = `http://127.0.0.1:${portB}`;
    const db = path.join(await tempDir(), 'elsewhere', 'db.sqlite');
    const spool = path.join(path.dirname(db), 'spool');

    const first = await runCli(['submit', '--db', db, '--server', urlA, a]);
    expect(first.code, describeResult(first)).toBe(1);
    expect(first.stdout).toContain(`kept in ${spool}/`);
    const hint = /send it later with (.*)$/m.exec(first.stdout)?.[1];
    expect(hint, first.stdout).toMatch(/ submit --pending --db /);
    // The same file again is the same entry; the other result.json is another one.
    expect((await runCli(['submit', '--db', db, '--server', urlA, a])).code).toBe(1);
    expect((await runCli(['submit', '--db', db, '--server', urlB, b])).code).toBe(1);
    expect(entries(spool)).toEqual([`${await idOf(a)}.json`, `${await idOf(b)}.json`].sort());
    // Nothing went to the default database's spool.
    expect(existsSync(path.join(defaultConfigDir(), 'data', 'spool'))).toBe(false);

    const serviceA = await serve(portA);
    const serviceB = await serve(portB);
    try {
      // The hint, run as printed: no --server, so each entry goes where it was meant to.
      const pending = await runCli([], { command: shellWords(hint!) });
      expect(pending.code, describeResult(pending)).toBe(0);
      expect(pending.stdout.match(/: stored [0-9a-f]{64}/g)).toHaveLength(2);
      expect(await serviceA.has(await idOf(a))).toBe(true);
      expect(await serviceA.count()).toBe(1);
      expect(await serviceB.has(await idOf(b))).toBe(true);
      expect(await serviceB.count()).toBe(1);
      expect(entries(spool)).toEqual([]);
      expect(readdirSync(spool)).toEqual([]);
    } finally {
      await serviceA.stop();
      await serviceB.stop();
    }
  });

  it('run --submit --db spools beside that database, and --server overrides where pending entries go', async () => {
    const server = await testServer();
    const db = path.join(await tempDir(), 'x', 'db.sqlite');
    const down = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli([
      'run',
      '-p',
      String(server.port),
      '-t',
      'get',
      '-n',
      '1000',
      '--db',
      db,
      '--submit',
      '--server',
      down,
    ]);
    // The submission asked for did not happen: said, after its retries, with exit 1; the result is kept.
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(/error: not submitted: \S+ did not answer \(ECONNREFUSED\), tried 3 times/);
    const id = /stored in .* as ([0-9a-f]{64})/.exec(r.stderr)![1]!;
    const spool = path.join(path.dirname(db), 'spool');
    expect(r.stderr).toContain(`Kept in ${path.join(spool, `${id}.json`)}`);
    // Readable by the user alone: a result not yet published, and where it was going.
    expect(statSync(spool).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(spool)) expect(statSync(path.join(spool, f)).mode & 0o777, f).toBe(0o600);
    expect(r.stderr).toMatch(/send it later with .* submit --pending --db \S*db\.sqlite/);
    expect(JSON.parse(readFileSync(path.join(spool, `${id}.servers`), 'utf8'))).toEqual({
      servers: [down],
    });

    const service = await serve(0);
    try {
      const sent = await runCli(['submit', '--pending', '--db', db, '--server', service.url]);
      expect(sent.code, describeResult(sent)).toBe(0);
      expect(await service.has(id)).toBe(true);
      expect(readdirSync(spool)).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});

describe('a service address with credentials', () => {
  const TOKEN = 'tok3n-Zq8sW1';

  /** Every file under `dir` whose bytes hold `needle`. */
  function filesHolding(dir: string, needle: string): string[] {
    const found: string[] = [];
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const file = path.join(e.parentPath, e.name);
      if (e.isFile() && readFileSync(file).includes(needle)) found.push(file);
    }
    return found;
  }

  it('is refused from --server, the environment and config.json, and no file under the home folder holds it', async () => {
    const server = await testServer();
    const home = await tempDir('rbdb-home-');
    const configDir = path.join(home, '.config', 'redis-benchdb');
    const env = {
      HOME: home,
      REDIS_BENCHDB_DB: path.join(home, '.local', 'share', 'redis-benchdb', 'benchdb.sqlite'),
    };
    const withCredentials = `http://u:${TOKEN}@127.0.0.1:${await closedPort()}`;
    const run = ['run', '-p', String(server.port), '-t', 'get', '-n', '1000', '--submit'];
    const tries = [
      await runCli([...run, '--server', withCredentials], { configDir, env }),
      await runCli(['submit', '--server', withCredentials, path.join(home, 'r.json')], { configDir, env }),
      await runCli(run, { configDir, env: { ...env, REDIS_BENCHDB_SERVER: withCredentials } }),
    ];
    await mkdir(configDir, { recursive: true });
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ server: withCredentials }));
    tries.push(await runCli(run, { configDir, env }));
    for (const r of tries) {
      expect(r.code, describeResult(r)).toBe(2);
      expect(r.stderr).toMatch(/holds credentials \(http:\/\/<user>:<password>@127\.0\.0\.1:\d+\)/);
      expect(r.stderr).toContain('Nothing was sent or written');
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
    }
    // The config file is the user's own; nothing else under the home folder holds the token.
    expect(filesHolding(home, TOKEN)).toEqual([path.join(configDir, 'config.json')]);
    // And the run stopped before it made a key or kept anything.
    expect(readdirSync(configDir)).toEqual(['config.json']);
    expect(existsSync(path.join(home, '.local'))).toBe(false);
  });
});
