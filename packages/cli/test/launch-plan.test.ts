import { buildProgram } from '@redis-benchdb/command';
import { type LaunchPlan, planLaunches, RunnerError } from '@redis-benchdb/runner';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../src/command/exit-code.js';
import runDef, { type RunFlags } from '../src/commands/run.js';
import { PROGRAM } from '../src/program.js';

/** Parse a `run` command line as bin.ts does (commander and the flags' parsers), then plan its launches without starting any. */
async function launches(...argv: string[]): Promise<LaunchPlan> {
  let flags: RunFlags | undefined;
  const program = buildProgram(PROGRAM, [runDef], async (_def, f) => {
    flags = f as RunFlags;
    return 0;
  });
  const before = process.exitCode;
  try {
    await program.parseAsync(['node', 'redis-benchdb', 'run', ...argv]);
  } finally {
    process.exitCode = before;
  }
  return planLaunches(flags!);
}

async function refused(...argv: string[]): Promise<string> {
  try {
    await launches(...argv);
  } catch (err) {
    expect(err).toBeInstanceOf(RunnerError);
    expect((err as RunnerError).code).toBe('ERR_USAGE');
    expect(exitCodeFor(err).code).toBe(2);
    return (err as Error).message;
  }
  throw new Error(`expected "${argv.join(' ')}" to be refused`);
}

describe('planLaunches', () => {
  it('crosses the axes, transport varying fastest, and names each member by what sets it apart', async () => {
    const plan = await launches(
      '--server-bin',
      'redis-server',
      '--server-config',
      'hz 50',
      '--server-config-variant',
      'io-threads 1',
      '--server-config-variant',
      'io-threads 2; io-threads-do-reads yes',
      '--transport',
      'tcp,unix',
    );
    expect(plan.groupId).toMatch(/^[0-9a-f]{16}$/);
    expect(plan.varies).toEqual(['serverConfig', 'transport']);
    const v = plan.members[0]!.label.split(' · ')[0]; // "redis-server 7.x.y", as the binary says
    expect(v).toMatch(/^redis-server \d+\.\d+\.\d+$/);
    expect(plan.members.map((m) => m.label)).toEqual([
      `${v} · io-threads 1 · tcp`,
      `${v} · io-threads 1 · unix`,
      `${v} · io-threads 2, io-threads-do-reads yes · tcp`,
      `${v} · io-threads 2, io-threads-do-reads yes · unix`,
    ]);
    expect(plan.members.map((m) => m.index)).toEqual([0, 1, 2, 3]);
    // --server-config first, then the variant: a later line wins in redis.conf.
    expect(plan.members[2]!.config).toEqual(['hz 50', 'io-threads 2', 'io-threads-do-reads yes']);
  });

  it('persistence variants become appendonly/appendfsync lines', async () => {
    const plan = await launches('--server-bin', 'redis-server', '--persistence', 'none,aof-always,aof-no');
    expect(plan.varies).toEqual(['persistence']);
    expect(plan.members.map((m) => [m.persistence, m.config])).toEqual([
      ['none', []],
      ['aof-always', ['appendonly yes', 'appendfsync always']],
      ['aof-no', ['appendonly yes', 'appendfsync no']],
    ]);
    expect(plan.members[0]!.label).toMatch(/ · no persistence$/);
  });

  it('one binary twice (an A/A run) varies nothing, and its labels are told apart', async () => {
    const plan = await launches('--server-bin', 'redis-server', '--server-bin', 'redis-server');
    expect(plan.varies).toEqual([]);
    expect(plan.members[1]!.label).toBe(`${plan.members[0]!.label} (run 2)`);
  });

  it('refuses what would break the launch or contradict it, saying what to do', async () => {
    expect(await refused('--transport', 'unix')).toMatch(
      /--transport applies to servers .* add --server-bin PATH/,
    );
    expect(await refused('--server-bin', 'redis-server', '-p', '7000')).toMatch(/drop -p$/);
    expect(await refused('--server-bin', 'redis-server', '--cluster')).toMatch(
      /standalone .* drop --cluster$/,
    );
    expect(await refused('--server-bin', 'redis-server', '--server-config', 'bind 0.0.0.0')).toMatch(
      /bind is set by redis-benchdb \(loopback only/,
    );
    expect(
      await refused(
        '--server-bin',
        'redis-server',
        '--persistence',
        'aof-always',
        '--server-config',
        'appendonly no',
      ),
    ).toMatch(/not both/);
    expect(await refused('--server-bin', 'redis-server', '--transport', 'tcp,quic')).toMatch(/"quic"/);
    expect(await refused('--server-bin', '/nonexistent/redis-server')).toMatch(/not found/);
    expect(await refused('--server-bin', 'redis-server', '--persistence', 'rdb')).toMatch(/aof-everysec/);
  });

  it('refuses a cross product past the limit before starting anything', async () => {
    const variants = Array.from({ length: 17 }, (_, i) => ['--server-config-variant', `hz ${10 + i}`]).flat();
    expect(await refused('--server-bin', 'redis-server', ...variants, '--transport', 'tcp,unix')).toMatch(
      /that is 34 runs .* at most 32/,
    );
  });
});
