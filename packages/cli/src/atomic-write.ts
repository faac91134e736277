import { rename, writeFile } from 'node:fs/promises';

/**
 * Written under a temporary name, then renamed: a reader finds the whole file, or the one before.
 * `mode` (e.g. 0o600 for what only the user should read) is set when the file is created, so the
 * text is never readable by others, not even for a moment.
 */
export async function writeAtomically(path: string, text: string, mode?: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, mode === undefined ? undefined : { mode });
  await rename(tmp, path);
}
