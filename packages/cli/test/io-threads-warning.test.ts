import { describe, expect, it } from 'vitest';
import { ioThreadsWarning } from '../dist/run/io-threads-warning.js';

describe('ioThreadsWarning', () => {
  it('warns only where io-threads (main thread included) exceed the CPUs the server was pinned to', () => {
    expect(ioThreadsWarning(2, '1')?.message).toMatch(
      /^io-threads 2 on a server pinned to one CPU \(1\): .* at least 2 CPUs with --server-cpus, or measure io-threads 1\.$/,
    );
    expect(ioThreadsWarning(3, '0-1')).toMatchObject({ code: 'IO_THREADS_OVER_CPUS', cell: null });
    expect(ioThreadsWarning(3, '0-1')?.message).toContain('pinned to 2 CPUs (0-1)');
    expect(ioThreadsWarning(2, '0-1')).toBeNull();
    expect(ioThreadsWarning(4, '0,2-4')).toBeNull();
    expect(ioThreadsWarning(1, '1')).toBeNull();
    // Not pinned, or the count unknown: nothing is known about the CPUs the threads had.
    expect(ioThreadsWarning(8, null)).toBeNull();
    expect(ioThreadsWarning(null, '1')).toBeNull();
  });
});
