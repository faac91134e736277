import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DERIVED_NOTE, derivedWarnings, ioThreadsOverCpus, type ResultV1, warningsOf } from '../src/index.js';

describe('ioThreadsOverCpus', () => {
  it('warns only where io-threads (main thread included) exceed the CPUs the server could run on', () => {
    expect(ioThreadsOverCpus(2, '1')?.message).toMatch(
      /^io-threads 2 on a server that could run on one CPU \(1\): .* at least 2 CPUs \(with --server-cpus when the runner launches it\), or measure io-threads 1\.$/,
    );
    expect(ioThreadsOverCpus(3, '0-1')).toMatchObject({ code: 'IO_THREADS_OVER_CPUS', cell: null });
    expect(ioThreadsOverCpus(3, '0-1')?.message).toContain('could run on 2 CPUs (0-1)');
    expect(ioThreadsOverCpus(2, '0-1')).toBeNull();
    expect(ioThreadsOverCpus(4, '0,2-4')).toBeNull();
    expect(ioThreadsOverCpus(1, '1')).toBeNull();
    // A remote server, a malformed list or an unknown count: nothing is known, nothing is said.
    expect(ioThreadsOverCpus(8, null)).toBeNull();
    expect(ioThreadsOverCpus(8, 'x')).toBeNull();
    expect(ioThreadsOverCpus(null, '1')).toBeNull();
  });
});

// A result from data/ made by a runner that predates IO_THREADS_OVER_CPUS: io-threads 2, server on CPU 1.
const dataFile = new URL(
  '../../../data/results/amd-epyc-2cpu-kvm/2026-11-25-2142880df6b23590-1-redis-server-6.0.20-io-threads-2.json',
  import.meta.url,
);
const old = JSON.parse(JSON.parse(readFileSync(dataFile, 'utf8')).payload) as ResultV1;

describe('derivedWarnings', () => {
  it("adds what an older runner did not check, marked as derived, and leaves the document's own alone", () => {
    expect(old.warnings.some((w) => w.code === 'IO_THREADS_OVER_CPUS')).toBe(false);
    const derived = derivedWarnings(old);
    expect(derived.map((w) => w.code)).toEqual(['IO_THREADS_OVER_CPUS']);
    expect(derived[0]?.message).toContain('one CPU (1)');
    expect(derived[0]?.message.endsWith(DERIVED_NOTE)).toBe(true);
    expect(warningsOf(old)).toEqual([...old.warnings, ...derived]);
  });

  it('adds nothing where the runner already said it, or where nothing is wrong', () => {
    const said = { ...old, warnings: [...old.warnings, ioThreadsOverCpus(2, '1')!] };
    expect(derivedWarnings(said)).toEqual([]);
    const one = {
      ...old,
      environment: { ...old.environment, server: { ...old.environment.server, ioThreads: 1 } },
    };
    expect(derivedWarnings(one)).toEqual([]);
  });
});
