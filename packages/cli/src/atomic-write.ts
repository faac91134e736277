import { rename, writeFile } from 'node:fs/promises';

/** Written under a temporary name, then renamed: a reader finds the whole file, or the one before. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
