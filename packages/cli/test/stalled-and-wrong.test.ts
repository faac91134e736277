import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkSubmission, IngestError } from '@redis-benchdb/db';
import { STALL_END_MARGIN_SEC } from '@redis-benchdb/engine';
import { holdUnlessBusy } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { withCpuPressure } from '../../engine/test/helpers/cpu-pressure.js';
import {
  client,
  describeResult,
  readEnvelope,
  spawnCli,
  tempDir,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// Issue 30 against a real redis-server of the test's own: a server stopped by SIGSTOP ends the run
// within --timeout plus STALL_END_MARGIN_SEC (it took 52-54 s with --timeout 10), and a server whose
// commandstats are reset under the run (CONFIG RESETSTAT from another client: the server then counts
// fewer calls than the replies the client received) gives a WRONG_REPLIES result that exits 1 and
// that ingest refuses.

cliFileHooks();

describe('a stopped server', () => {
  it(`ends the run within --timeout + ${STALL_END_MARGIN_SEC} s of the SIGSTOP`, async ({ task }) => {
    const server = await testServer();
    const redis = await client(server);
    const timeoutSec = 3;
    let paused = false;
    try {
      const cli = spawnCli([
        'run',
        '-p',
        String(server.port),
        '-t',
        'set',
        '--duration',
        '60',
        '--timeout',
        String(timeoutSec),
        '--no-store',
      ]);
      await waitFor(
        async () => /cmdstat_set:calls=[1-9]/.test(await redis.info('commandstats')),
        () => `SET load on the server\n${cli.stderr()}`,
      );
      const stoppedAt = performance.now();
      process.kill(server.pid, 'SIGSTOP');
      paused = true;
      const { value: r, host } = await withCpuPressure(() => cli.done);
      const afterSec = (performance.now() - stoppedAt) / 1000;
      process.stderr.write(
        `SIGSTOP: the run ended ${afterSec.toFixed(2)} s after the stop (--timeout ${timeoutSec})\n`,
      );
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stderr).toMatch(/error: SET: the server at 127\.0\.0\.1:\d+ stopped answering/);
      // The keys could not be removed from a stopped server: the run says so, and how to remove them.
      expect(r.stderr).toMatch(
        /could not remove the run's keys under rbdb:[0-9a-f]{6}:\*.*remove them with: .*cleanup/,
      );
      // Not before --timeout, however busy the host; within the margin after it on a quiet host (a
      // busy one delays the timer and the exit alike, and the claim is then recorded as skipped).
      expect(afterSec).toBeGreaterThanOrEqual(timeoutSec);
      holdUnlessBusy({ task }, host, `the run ended within --timeout + ${STALL_END_MARGIN_SEC} s`, () =>
        expect(afterSec).toBeLessThanOrEqual(timeoutSec + STALL_END_MARGIN_SEC),
      );
    } finally {
      if (paused) process.kill(server.pid, 'SIGCONT');
    }
  });
});

describe('a server whose commandstats fall short of the replies', () => {
  it('gets WRONG_REPLIES, exits 1, and ingest refuses the signed result', async () => {
    const server = await testServer();
    const redis = await client(server);
    const dir = await tempDir();
    const file = path.join(dir, 'reset.json');
    const cli = spawnCli([
      'run',
      '-p',
      String(server.port),
      '-t',
      'set',
      '-n',
      '300000',
      '--no-store',
      '--out',
      file,
    ]);
    // Another client resets the counts once the cell is a tenth done, as CONFIG RESETSTAT does in
    // production: the server then counts about 10% fewer calls than the client received replies.
    const calls = async () =>
      Number(/cmdstat_set:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    await waitFor(
      async () => (await calls()) >= 30_000,
      () => `SET load on the server\n${cli.stderr()}`,
    );
    await redis.config('RESETSTAT');
    const r = await cli.done;
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(/warning WRONG_REPLIES \(SET\): .*the server counted [\d,]+ calls of set/);
    expect(r.stderr).toMatch(/error: the server's replies were wrong in SET \(warning WRONG_REPLIES\)/);
    const { payload } = await readEnvelope(file);
    expect(payload.cells[0]!.crossCheck.status).toBe('mismatch');
    expect(payload.warnings.map((w) => w.code)).toContain('WRONG_REPLIES');
    let refused: unknown = null;
    try {
      checkSubmission(readFileSync(file, 'utf8'));
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(IngestError);
    expect((refused as IngestError).code).toBe('WRONG_REPLIES');
  });
});
