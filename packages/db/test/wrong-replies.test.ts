// Issue 30, item 4: a result whose server answered with wrong replies is not stored. The runner
// flags such a cell WRONG_REPLIES; a runner older than that flag still records the commandstats
// shortfall (49,999 calls counted against 3,000,000 replies), which ingest reads by itself.

import { CROSS_CHECK_SHORTFALL_TOLERANCE } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { count, IngestError, ingest } from '../src/index.js';
import { body, NOW, tempDb, variant } from './fixtures.js';

function refusal(input: string): IngestError {
  const db = tempDb();
  let error: unknown;
  try {
    ingest(db, input, { now: NOW });
  } catch (e) {
    error = e;
  }
  expect(error, 'ingest() accepted it').toBeInstanceOf(IngestError);
  expect(count(db).results).toBe(0);
  return error as IngestError;
}

describe('ingest refuses wrong replies', () => {
  it('a cell with a WRONG_REPLIES warning: 422, naming the cell and what was wrong', () => {
    const r = variant(1, (r) => {
      r.warnings.push({
        code: 'WRONG_REPLIES',
        cell: r.cells[0]!.label,
        message: '2,000 replies to GET were an integer, which GET never returns.',
      });
    });
    const e = refusal(body(r));
    expect({ code: e.code, status: e.status }).toEqual({ code: 'WRONG_REPLIES', status: 422 });
    expect(e.message).toContain(`${r.cells[0]!.label}: 2,000 replies to GET were an integer`);
  });

  it("a commandstats shortfall past the tolerance, though the runner said nothing (issue 30's figures)", () => {
    const r = variant(2, (r) => {
      const c = r.cells[0]!;
      c.crossCheck = {
        status: 'mismatch',
        expected: 3_000_000,
        observed: 49_999,
        commands: ['get'],
        note: 'the server counted fewer calls than replies received',
      };
    });
    const e = refusal(body(r));
    expect(e.code).toBe('WRONG_REPLIES');
    expect(e.message).toContain(
      'the server counted 49,999 calls of get (INFO commandstats) where the client received 3,000,000 replies: 98.3% fewer',
    );
  });

  it('stores a shortfall within the tolerance, and a surplus (other clients ran the command)', () => {
    const db = tempDb();
    const within = variant(3, (r) => {
      r.cells[0]!.crossCheck = {
        status: 'mismatch',
        expected: 100_000,
        observed: 100_000 * (1 - CROSS_CHECK_SHORTFALL_TOLERANCE),
        commands: ['set'],
        note: 'the server counted fewer calls than replies received',
      };
    });
    const surplus = variant(4, (r) => {
      r.cells[0]!.crossCheck = {
        status: 'mismatch',
        expected: 100_000,
        observed: 250_000,
        commands: ['set'],
        note: 'other clients ran the same commands during the cell',
      };
    });
    ingest(db, body(within), { now: NOW });
    ingest(db, body(surplus), { now: NOW });
    expect(count(db).results).toBe(2);
  });
});
