// Issue 30 item 1 through the real service (its own bin on a port, over a temp SQLite file): a signed
// file seen before its owner submits it, re-signed by another key and sent first, must not take the
// result, its rank or the right to retract it from the key that measured it.
import { signRetraction } from '@redis-benchdb/db';
import { legacyBody, reboundBody } from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  body,
  key,
  otherKey,
  otherRun,
  post,
  request,
  type ServiceProcess,
  signPayload,
  spawnService,
  suiteRun,
  variant,
  vouchedDbPath,
} from './fixtures.js';

let service: ServiceProcess;
let results: string;
const SET_FP = suiteRun().cells[0]!.workloadFingerprint;

beforeAll(async () => {
  service = await spawnService(vouchedDbPath(), [], { sharedByTests: true });
  results = `${service.url}/api/v1/results`;
});

afterAll(() => service?.child.kill('SIGTERM'));

/** How many results the SET cell's cohort counts, as the read API says. */
const cohortCount = async () =>
  ((await request(`${service.url}/api/v1/cohorts/${SET_FP}`)).json as { count: number }).count;
const retractAs = (id: string, privateKeyPem: string) =>
  post(
    `${results}/${id}/retract`,
    JSON.stringify(signRetraction(id, privateKeyPem, new Date(), { origin: service.url })),
  );

describe('who owns a result, at the service', () => {
  it("the owner's file re-signed as it is by another key: 422 KEY_MISMATCH, and the owner's own is then 201", async () => {
    const owners = body(variant(101));
    const copy = signPayload(JSON.parse(owners).payload, otherKey);
    const refused = await post(results, copy);
    expect({ status: refused.status, code: refused.json.error?.code }, refused.text).toEqual({
      status: 422,
      code: 'KEY_MISMATCH',
    });
    const own = await post(results, owners);
    expect(own.status, own.text).toBe(201);
    expect(own.json.duplicate).toBeUndefined();
    // Retract it so that the next tests' cohort is theirs alone.
    expect((await retractAs(own.json.id as string, key.privateKeyPem)).status).toBe(200);
  });

  it("a copy re-bound to another key and sent first: both 201, both disputed, out of the cohort; no key retracts the other's", async () => {
    // Measurements of their own (otherRun), so that no earlier test's result holds them.
    const owners = body(otherRun(102));
    const before = await cohortCount();
    const copy = await post(results, reboundBody(owners, otherKey));
    expect(copy.status, copy.text).toBe(201);
    const copyId = copy.json.id as string;
    const own = await post(results, owners);
    // Today's code answered the owner "200 duplicate" (same payload) or 409 (same histograms).
    expect(own.status, own.text).toBe(201);
    expect(own.json).toMatchObject({ disputedWith: [copyId], ranks: [] });
    const ownId = own.json.id as string;
    // The copy counted until the owner came; now neither does.
    expect(await cohortCount()).toBe(before);
    expect((await retractAs(ownId, otherKey.privateKeyPem)).status).toBe(403);
    expect((await retractAs(copyId, key.privateKeyPem)).status).toBe(403);
    // The owner withdrawing does not hand the measurements to the copier.
    expect((await retractAs(ownId, key.privateKeyPem)).status).toBe(200);
    expect(await cohortCount()).toBe(before);
  });

  it('a result signed before the binding, sent first by another key: the owner gets 409 DISPUTED, and nobody can retract it', async () => {
    const doc = otherRun(103);
    const before = await cohortCount();
    const taken = await post(results, legacyBody(doc, otherKey));
    expect(taken.status, taken.text).toBe(201);
    const id = taken.json.id as string;
    expect(await cohortCount()).toBe(before + 1);
    const own = await post(results, legacyBody(doc, key));
    expect({ status: own.status, code: own.json.error?.code }, own.text).toEqual({
      status: 409,
      code: 'DISPUTED',
    });
    expect(own.json.error?.message).toContain('it is not given to this one, both claims are recorded');
    expect(await cohortCount()).toBe(before);
    const byFirst = await retractAs(id, otherKey.privateKeyPem);
    expect({ status: byFirst.status, code: byFirst.json.error?.code }).toEqual({
      status: 409,
      code: 'DISPUTED',
    });
    expect((await retractAs(id, key.privateKeyPem)).status).toBe(403);
    expect((await request(`${results}/${id}`)).status).toBe(200);
  });
});
