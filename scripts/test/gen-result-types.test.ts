import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate } from '../gen-result-types.mjs';

const ROOT = new URL('../../', import.meta.url);

describe('scripts/gen-result-types.mjs', () => {
  it('writes what packages/result/src/generated/ holds: the generated files are up to date with schemas/ (run `pnpm gen:types`)', async () => {
    const files = (await generate()) as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual([
      'packages/result/src/generated/imported-v1.ts',
      'packages/result/src/generated/result-v1.ts',
      'packages/result/src/generated/schemas.ts',
    ]);
    for (const [path, content] of Object.entries(files)) {
      expect(readFileSync(new URL(path, ROOT), 'utf8'), `${path} is stale: run pnpm gen:types`).toBe(content);
    }
  });
});
