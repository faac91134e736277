import { describe, expect, it } from 'vitest';
import { warningLines } from '../src/run/warning-lines.js';

// Issue 41: a run on a busy host printed one BUSY_HOST line for each of its 30 cells, which pushed the
// result's address off the screen. One line per code now, naming the cells.
const busy = (cell: string, pct: number) => ({
  code: 'BUSY_HOST',
  cell,
  message: `Other processes used ${pct}% of this host's CPU time while this cell was measured`,
});

describe('the run’s closing warnings', () => {
  it('one line per code that several cells carry, naming the first cells and how many more', () => {
    const cells = ['SET', 'GET', 'GET P4', 'GET P16', 'INCR'];
    const lines = warningLines([
      { code: 'VM', cell: null, message: 'The client runs in a virtual machine (KVM).' },
      ...cells.map((c, i) => busy(c, 50 + i)),
      { code: 'DRIFT', cell: null, message: 'The first cell, measured again, disagrees.' },
    ]);
    expect(lines).toEqual([
      'warning VM: The client runs in a virtual machine (KVM).',
      "warning BUSY_HOST in 5 cells (SET, GET, GET P4 and 2 more); SET: Other processes used 50% of this host's CPU time while this cell was measured",
      'warning DRIFT: The first cell, measured again, disagrees.',
    ]);
  });

  it('a code one cell carries keeps its line as before', () => {
    expect(
      warningLines([{ code: 'ERRORS', cell: 'SET', message: 'Most replies in this cell were errors.' }]),
    ).toEqual(['warning ERRORS (SET): Most replies in this cell were errors.']);
  });

  it('two cells are both named', () => {
    expect(warningLines([busy('SET', 7), busy('GET', 9)])[0]).toMatch(
      /^warning BUSY_HOST in 2 cells \(SET, GET\); SET: /,
    );
  });
});
