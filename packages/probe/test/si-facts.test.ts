import { describe, expect, it } from 'vitest';
import { bounded } from '../src/si-facts.js';

// The deadline is what keeps a stuck lscpu or dmidecode from hanging a run. These wait on the
// promise itself, so a busy machine makes them slower, never wrong.
describe('bounded systeminformation calls', () => {
  it('a call that never answers becomes a reason when the deadline passes', async () => {
    const never = () => new Promise<number>(() => {});
    const fact = await bounded('si.cpu()', never, Date.now() + 20, 20);
    expect(fact).toEqual({ value: null, reason: 'systeminformation si.cpu() did not answer within 20 ms' });
  });

  it('an answer before the deadline is kept, and a failure is a reason, not an exception', async () => {
    expect(await bounded('si.mem()', async () => 42, Date.now() + 60_000, 60_000)).toEqual({
      value: 42,
      reason: null,
    });
    const failing = async () => {
      throw new Error('lscpu: not found');
    };
    expect(await bounded('si.system()', failing, Date.now() + 60_000, 60_000)).toEqual({
      value: null,
      reason: 'systeminformation si.system() failed: lscpu: not found',
    });
  });
});
