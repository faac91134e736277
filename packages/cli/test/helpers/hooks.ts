import { afterAll, afterEach, beforeAll } from 'vitest';
import { assertBuilt, removeTempDirs, stopServers } from './cli.js';

export interface CliFileHooks {
  /**
   * Fail the file before its first test when the built CLI is missing (its tests spawn dist/bin.js).
   * False in a file whose other tests call the CLI's code directly: they still run without a build.
   * @default true
   */
  built?: boolean;
  /**
   * When the redis-servers the file started (testServer) stop: after its last test, or after each
   * test where a test must start from no server of another's (a run's cleanup, a port's owner).
   * @default 'file'
   */
  servers?: 'file' | 'test';
}

/**
 * The hooks of a test file that runs the CLI against redis-servers and temp dirs of its own
 * (testServer, tempDir in cli.ts): when it is built, and nothing of it left behind at the end.
 * Call it once, at the top level of the file, where the hooks it replaces were.
 */
export function cliFileHooks({ built = true, servers = 'file' }: CliFileHooks = {}): void {
  if (built) beforeAll(assertBuilt);
  if (servers === 'test') afterEach(stopServers);
  afterAll(async () => {
    if (servers === 'file') await stopServers();
    await removeTempDirs();
  });
}
