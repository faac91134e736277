import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, openDatabase } from '@redis-benchdb/db';
import type { ResultV1 } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { LOCAL_SIGNER } from '../src/run/keep.js';
import { rankLines } from '../src/submit.js';
import { closedPort, runCli, spawnCli, tempDir, testServer, waitFor } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

cliFileHooks({ built: false });

/** The service's own bin (`redis-benchdb-server`, built by `pnpm build`). */
const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/** The ingest service on a fresh database, as a separate process; returns its URL. */
async function serve(dbPath: string) {
  const proc = spawnCli(['--db', dbPath, '--port', '0'], {
    command: [process.execPath, SERVER_MAIN],
  });
  const listening = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
  await waitFor(() => listening.test(proc.stdout()), 'the service to print "listening on"');
  return {
    url: listening.exec(proc.stdout())![1]!,
    stop: () => proc.child.kill('SIGTERM'),
    done: proc.done,
  };
}

describe('rank lines', () => {
  it('give a percentile of a cohort of five or more, and a place below', () => {
    const standing = (size: number, place: number, percentile: number | null) => ({
      size,
      place,
      percentile,
    });
    expect(
      rankLines([
        { label: 'GET', opsPerSec: 1, overall: standing(12, 2, 90.9), sameCpu: standing(3, 2, null) },
        { label: 'SET', opsPerSec: 1, overall: standing(101, 1, 99.99), sameCpu: null },
        { label: 'LPUSH', opsPerSec: 1, overall: standing(1, 1, null), sameCpu: standing(1, 1, null) },
      ]),
    ).toEqual([
      '  GET: faster than 90% of the 11 other results of this workload (2nd of 12); 2nd of 3 results on this machine kind',
      // Floored: 99.99 is not "faster than 100%".
      '  SET: faster than 99% of the 100 other results of this workload (1st of 101)',
      '  LPUSH: the only result of this workload; the only result on this machine kind',
    ]);
  });
});

describe('rank lines of a result the corroboration rule holds back', () => {
  it('say where it stands among the admitted results, and why it moves no summary yet', () => {
    const standing = { size: 72, place: 1, percentile: 100 };
    const [outlier, provisional] = rankLines([
      { label: 'GET', opsPerSec: 1, overall: standing, sameCpu: null, held: 'OUTLIER' },
      { label: 'SET', opsPerSec: 1, overall: standing, sameCpu: null, held: 'PROVISIONAL' },
    ]);
    expect(outlier).toBe(
      "  GET: faster than 100% of the 71 other results of this workload (1st of 72) (an outlier: beyond 3 MADs of its machine kind's admitted results, so it is ranked against them but moves no summary until corroborated; see its page)",
    );
    expect(provisional).toMatch(
      /^ {2}SET: .* \(provisional: no other signer's admitted result of this machine kind vouches for it yet/,
    );
  });
});

describe('rank lines follow the admission rule', () => {
  const example = JSON.parse(
    readFileSync(new URL('../../../schemas/examples/valid/suite-run.json', import.meta.url), 'utf8'),
  ) as ResultV1;
  const envelope = (edit: (r: ResultV1) => void) => {
    const r = structuredClone(example);
    edit(r);
    return JSON.stringify({ payload: JSON.stringify(r) });
  };
  const ranked = [
    { label: 'GET', opsPerSec: 1, overall: { size: 3, place: 1, percentile: null }, sameCpu: null },
  ];

  it('says there is no rank when every cell was on a busy host or unstable, never a bare rank', () => {
    const busy = envelope((r) => {
      r.warnings.push({ code: 'BUSY_HOST', cell: 'GET', message: 'busy' });
      r.cells.find((c) => c.label === 'SET')!.unstable = true;
    });
    expect(rankLines(ranked, busy)).toEqual([
      '  no rank: no cell of this run is fit to rank servers by (1 unstable, 1 busy host)',
    ]);
  });

  it('counts the cells left out, and marks a ranked cell that is unstable', () => {
    const one = envelope((r) => {
      r.warnings.push({ code: 'DRIFT', cell: 'SET', message: 'drift' });
      r.cells.find((c) => c.label === 'GET')!.unstable = false;
    });
    expect(rankLines(ranked, one)).toEqual([
      '  GET: 1st of 3 results of this workload',
      '  1 of 2 cells left out of rankings: 1 drift',
    ]);
  });
});

describe('keeping and submitting results', () => {
  it('run stores its signed result locally, submits it, and spools it when the service is down', async () => {
    const server = await testServer();
    const configDir = await tempDir();
    const serviceDb = path.join(await tempDir(), 'service.sqlite');
    const service = await serve(serviceDb);
    const localDb = path.join(configDir, 'data', 'benchdb.sqlite');

    const ok = await runCli(
      ['run', '-p', String(server.port), '-t', 'set', '-n', '2000', '--submit', '--server', service.url],
      { configDir },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const id = /stored in .* as ([0-9a-f]{64})/.exec(ok.stderr)![1]!;
    expect(ok.stderr).toContain(`submitted: ${id} ${service.url}/results/${id}/`);
    // The first SET of this workload on the service: nothing to rank it against, and it says so.
    // Its key is new to the service: provisional there (corroboration.ts), and the line says so.
    expect(ok.stderr).toMatch(
      /^ {2}(SET: the only result of this workload; the only result on this machine kind( \(provisional: .*\))?|no rank: no cell of this run is fit to rank servers by \(.+\))$/m,
    );
    const local = openDatabase(localDb, { readonly: true });
    expect(count(local).results).toBe(1);
    // The local database is its owner's: it names the runner's own key, so the local site counts it.
    expect(local.sqlite.prepare('SELECT signer FROM key_signers').all()).toEqual([{ signer: LOCAL_SIGNER }]);
    local.close();
    const second = await runCli(
      ['run', '-p', String(server.port), '-t', 'set', '-n', '2000', '--submit', '--server', service.url],
      { configDir },
    );
    expect(second.code, second.stderr).toBe(0);
    // Two results: a place, never a percentile.
    expect(second.stderr).toMatch(
      /^ {2}(SET: (1st|2nd) of 2 results of this workload; (1st|2nd) of 2 results on this machine kind|SET: the only result of this workload; the only result on this machine kind|no rank: .+)( \(provisional: .*\))?$/m,
    );
    expect(second.stderr).not.toMatch(/^ {2}SET:.*%/m);
    const stored = (await (await fetch(`${service.url}/api/v1/results/${id}`)).json()) as {
      keyFingerprint: string;
    };
    expect(stored.keyFingerprint).toMatch(/^sha256:/);

    // Down: the result waits in the spool, the run says how to send it, and exits 1 (not submitted).
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const down = await runCli(
      ['run', '-p', String(server.port), '-t', 'get', '-n', '2000', '--submit', '--server', dead],
      { configDir },
    );
    expect(down.code, down.stderr).toBe(1);
    expect(down.stderr).toMatch(/not submitted: .*ECONNREFUSED.*submit --pending/);
    const spool = path.join(configDir, 'data', 'spool');
    expect(readdirSync(spool).filter((f) => f.endsWith('.json'))).toHaveLength(1);

    const pending = await runCli(['submit', '--pending', '--server', service.url], { configDir });
    expect(pending.code, pending.stdout).toBe(0);
    expect(pending.stdout).toMatch(/: stored [0-9a-f]{64}/);
    expect(readdirSync(spool).filter((f) => f.endsWith('.json'))).toHaveLength(0);
    const health = (await (await fetch(`${service.url}/api/v1/health`)).json()) as { results: number };
    expect(health.results).toBe(3);

    service.stop();
    expect((await service.done).code).toBe(0);
  });

  it('submit FILE posts a saved result once; a tampered one is refused with the reason', async () => {
    const server = await testServer();
    const configDir = await tempDir();
    const service = await serve(path.join(await tempDir(), 'service.sqlite'));
    const file = path.join(configDir, 'r.json');
    const run = await runCli(
      ['run', '-p', String(server.port), '-t', 'incr', '-n', '1000', '--no-store', '--out', file],
      { configDir },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(path.join(configDir, 'data', 'benchdb.sqlite'))).toBe(false);

    const first = await runCli(['submit', '--server', service.url, file], { configDir });
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toMatch(
      // A fresh key's result is provisional (the corroboration rule), which its line says when it ranks.
      /^ {2}(INCR: the only result of this workload; the only result on this machine kind( \(provisional: .+\))?|no rank: no cell of this run is fit to rank servers by \(.+\))$/m,
    );
    const again = await runCli(['submit', '--server', service.url, file], { configDir });
    expect(again.stdout).toContain('already stored');

    const tampered = path.join(configDir, 'tampered.json');
    await writeFile(
      tampered,
      (await readFile(file, 'utf8')).replace(/"opsPerSec\\":(\d)/, '"opsPerSec\\":9$1'),
    );
    const bad = await runCli(['submit', '--server', service.url, tampered], { configDir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/refused: 422 BAD_SIGNATURE/);

    const none = await runCli(['submit', file], { configDir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--server');
    service.stop();
    await service.done;
  });

  it('retract unlists your own result; another key is refused', async () => {
    const server = await testServer();
    const mine = await tempDir();
    const theirs = await tempDir();
    const service = await serve(path.join(await tempDir(), 'service.sqlite'));
    const run = await runCli(
      ['run', '-p', String(server.port), '-t', 'set', '-n', '1000', '--submit', '--server', service.url],
      { configDir: mine },
    );
    expect(run.code, run.stderr).toBe(0);
    const id = /submitted: ([0-9a-f]{64})/.exec(run.stderr)![1]!;

    await runCli(['keygen'], { configDir: theirs });
    const other = await runCli(['retract', id, '--server', service.url], { configDir: theirs });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain('403 NOT_YOUR_RESULT');
    expect((await fetch(`${service.url}/api/v1/results/${id}`)).status).toBe(200);

    const own = await runCli(['retract', id, '--server', service.url], { configDir: mine });
    expect(own.code, own.stdout).toBe(0);
    expect(own.stdout).toContain(`${id}: retracted`);
    expect((await fetch(`${service.url}/api/v1/results/${id}`)).status).toBe(410);
    service.stop();
    await service.done;
  });
});

describe('submit of a file that is not there', () => {
  it('says which file and what to name instead, with no stack trace, and sends nothing', async () => {
    const dir = await tempDir();
    const missing = path.join(dir, 'missing.json');
    const r = await runCli(['submit', missing, '--server', `http://127.0.0.1:${await closedPort()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot read ${missing}: no such file. Name a signed result file, as \`run --out FILE\` writes it; nothing was sent\n`,
    );
    const folder = await runCli(['submit', dir, '--server', `http://127.0.0.1:${await closedPort()}`]);
    expect(folder.stderr).toMatch(/^error: cannot read .*: it is a directory\./);
  });
});
