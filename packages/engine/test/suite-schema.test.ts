// The suite file has a schema (schemas/suite.v1.schema.json, issue 43 item 4): every suite the runner
// ships validates against it, the schema names exactly the runner's cell options, and a suite with a
// misspelt option, no trials or an objective on its baseline is refused at the path that is wrong.
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CELL_OPTIONS } from '../src/options.js';
import { SUITES, suiteCells } from '../src/suites.js';

const Ajv2020 = Ajv2020Module.default;
const schema = JSON.parse(
  readFileSync(new URL('../../../schemas/suite.v1.schema.json', import.meta.url), 'utf8'),
);
const validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);

/** The paths (JSON Pointers) and messages of a suite's schema errors, or [] when it is valid. */
function errorsOf(suite: unknown): string[] {
  if (validate(suite)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath} ${e.message}${e.params?.unevaluatedProperty ? `: ${e.params.unevaluatedProperty}` : ''}`,
  );
}

/** A suite as its file holds it, loosely typed so that a test can break it. */
type Loose = Record<string, unknown>;
interface SuiteFile extends Loose {
  baseline: Loose;
  profiles: Record<string, Loose & { cells: Loose[] }>;
}
const standard = JSON.parse(
  readFileSync(new URL('../src/suites/standard-v1.json', import.meta.url), 'utf8'),
) as SuiteFile;
const quick = (s: SuiteFile) => s.profiles.quick!;

describe('the suite schema', () => {
  it('every shipped suite validates, and each of its profiles expands into cells', () => {
    expect(SUITES['standard-v1']).toEqual(standard);
    for (const [id, suite] of Object.entries(SUITES)) {
      expect(errorsOf(suite), id).toEqual([]);
      for (const profile of Object.keys(suite.profiles))
        expect(suiteCells(id, profile).length, `${id} ${profile}`).toBeGreaterThan(0);
    }
  });

  it("names every option the runner's cells have, and nothing else", () => {
    const inSchema = Object.keys(schema.$defs.cellOptions.properties).sort();
    // The options with no default (each optional in CellOptions), beside the defaulted ones.
    const optional = ['command', 'setGetRatio', 'durationSec', 'rateOpsPerSec'];
    const cellKeys = [...new Set([...Object.keys(DEFAULT_CELL_OPTIONS), ...optional])].filter(
      (k) => k !== 'slo',
    );
    expect(inSchema).toEqual(cellKeys.sort());
  });

  it('refuses a misspelt option, a profile without trials and an objective on the baseline, at their paths', () => {
    const bad = structuredClone(standard);
    quick(bad).cells[2]!.pipelinedepth = 4;
    delete bad.profiles.full!.trials;
    bad.baseline.slo = 'p99<=1ms';
    const errors = errorsOf(bad);
    expect(errors).toContain('/profiles/quick/cells/2 must NOT have unevaluated properties: pipelinedepth');
    expect(errors).toContain("/profiles/full must have required property 'trials'");
    expect(errors).toContain('/baseline must NOT have unevaluated properties: slo');
    expect(errors).toHaveLength(3);
  });

  it('refuses an objective the runner could not read, and takes the forms it can', () => {
    const withSlo = (slo: string) => {
      const s = structuredClone(standard);
      quick(s).cells = [{ test: 'GET', slo }];
      return errorsOf(s);
    };
    expect(withSlo('p99<=1ms')).toEqual([]);
    expect(withSlo('p99<=500us,p99.9<=2ms')).toEqual([]);
    expect(withSlo('p99 under 1ms')).toEqual([
      '/profiles/quick/cells/0/slo must match pattern "^p[0-9.]+<=[0-9.]+(us|ms|s)(,p[0-9.]+<=[0-9.]+(us|ms|s))*$"',
    ]);
  });
});
