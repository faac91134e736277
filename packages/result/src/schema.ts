import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { envelopeV1Schema, importedV1Schema, resultV1Schema } from './generated/schemas.js';
import type { Problem } from './problem.js';
import { findForbiddenChar } from './text.js';

// ajv and ajv-formats are CommonJS: under NodeNext the default import is `module.exports`, which
// TypeScript types as the module namespace; the class and the plugin are its `default` property.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export const RESULT_SCHEMA_ID = 'redis-benchdb/result.v1';
export const ENVELOPE_SCHEMA_ID = 'redis-benchdb/envelope.v1';
export const IMPORTED_SCHEMA_ID = 'redis-benchdb/imported.v1';

/**
 * One schema error, coded by the rule it broke: the JSON Schema keyword in capitals (`required` is
 * REQUIRED, `additionalProperties` ADDITIONAL_PROPERTIES), or UNSUPPORTED_SCHEMA for a document of
 * another kind or version. `path` is the JSON Pointer of the offending value, e.g.
 * `/cells/0/opsPerSec/median` ('' is the document); `message` the path, then what is wrong:
 * `/runner/version: must be string`.
 */
export type ValidationError = Problem;

export type ValidationOutcome = { ok: true } | { ok: false; errors: ValidationError[] };

/** At most this many errors are reported: the first ones say enough, and a broken file can have thousands. */
export const MAX_VALIDATION_ERRORS = 20;

interface Validators {
  result: ValidateFunction;
  envelope: ValidateFunction;
  imported: ValidateFunction;
}

let compiled: { fast: Validators; full: Validators } | undefined;

/**
 * The schemas, compiled on first use (compiling costs ~10 ms; most importers never validate), twice:
 * `fast` stops at the first error and decides validity whatever the body; `full` collects every
 * error, for the list shown, and is only ever given a document of bounded size (see detail).
 */
function validators() {
  if (!compiled) {
    const build = (allErrors: boolean): Validators => {
      const ajv = new Ajv2020({ allErrors, strict: true, allowUnionTypes: true });
      addFormats(ajv);
      return {
        result: ajv.compile(resultV1Schema),
        envelope: ajv.compile(envelopeV1Schema),
        imported: ajv.compile(importedV1Schema),
      };
    };
    compiled = { fast: build(false), full: build(true) };
  }
  return compiled;
}

/**
 * Compile the schemas now rather than at the first validation. A run calls this before its load:
 * on a loaded 2-CPU host compiling took 3.8 s, which a run that ends at a stalled server's
 * deadline (run --timeout, and a stated margin) cannot spend after it.
 */
export function compileSchemas(): void {
  validators();
}

/**
 * For the detailed list, arrays are cut to their first DETAIL_ITEMS items: every error ajv lists
 * costs it work, and 1,000 empty cells (a 3 KB body) made 22,000 errors and held the ingest
 * service for seconds. Cut, the work is bounded by the schema's nesting, not by the body.
 */
const DETAIL_ITEMS = 8;

/** What the last failed validation cost ajv, for tests that check the work stays bounded. */
export const lastValidationWork = { ajvErrors: 0, cut: false };

/** Check a document against `schemas/result.v1.schema.json`. */
export function validateResult(doc: unknown): ValidationOutcome {
  return wrongSchema(doc, RESULT_SCHEMA_ID) ?? run('result', doc);
}

/** Check a signed envelope's shape against `schemas/envelope.v1.schema.json` (not its signature). */
export function validateEnvelope(doc: unknown): ValidationOutcome {
  return wrongSchema(doc, ENVELOPE_SCHEMA_ID) ?? run('envelope', doc);
}

/** Check an imported result (another tool's output or a published document's figures) against `schemas/imported.v1.schema.json`. */
export function validateImported(doc: unknown): ValidationOutcome {
  return wrongSchema(doc, IMPORTED_SCHEMA_ID) ?? run('imported', doc);
}

/**
 * A document of another kind or version (`result.v2`, an envelope given as a result) fails every
 * other check too; say the one thing that matters instead of twenty consequences.
 */
function wrongSchema(doc: unknown, expected: string): ValidationOutcome | undefined {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || !('schema' in doc)) return undefined;
  const actual = (doc as { schema: unknown }).schema;
  if (actual === expected) return undefined;
  const hint =
    typeof actual === 'string' && actual.startsWith('redis-benchdb/')
      ? ` (this is "${actual}": a different kind of document, or a version this code does not know)`
      : '';
  const message = `/schema: must be "${expected}"${hint}`;
  return { ok: false, errors: [{ code: 'UNSUPPORTED_SCHEMA', path: '/schema', message }] };
}

function run(kind: keyof Validators, doc: unknown): ValidationOutcome {
  const { fast, full } = validators();
  if (fast[kind](doc)) return { ok: true };
  const first = fast[kind].errors ?? [];
  const cut = cutArrays(doc);
  lastValidationWork.cut = cut !== doc;
  full[kind](cut);
  const all = full[kind].errors ?? [];
  lastValidationWork.ajvErrors = all.length + first.length;
  if (cut === doc) return { ok: false, errors: describeErrors(all, doc) };
  // The first error in the whole document leads: it may lie past the cut (cell 30 of 43, or a
  // maxItems that the cut arrays no longer break), and the cut document's errors follow it.
  const errors = describeErrors([...first, ...all], doc);
  return { ok: false, errors };
}

/** `doc` itself when no array in it is longer than DETAIL_ITEMS, else a copy with each one cut. */
function cutArrays(doc: unknown): unknown {
  if (Array.isArray(doc)) {
    let changed = doc.length > DETAIL_ITEMS;
    const kept = doc.slice(0, DETAIL_ITEMS).map((v, i) => {
      const c = cutArrays(v);
      if (c !== doc[i]) changed = true;
      return c;
    });
    return changed ? kept : doc;
  }
  if (doc === null || typeof doc !== 'object') return doc;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(doc)) {
    const c = cutArrays(v);
    if (c === v) continue;
    out ??= { ...(doc as Record<string, unknown>) };
    out[k] = c;
  }
  return out ?? doc;
}

function describeErrors(raw: ErrorObject[], doc: unknown): ValidationError[] {
  const realErrorAtOrBelow = pathsWithRealErrors(raw);
  const errors = raw.filter((e) => !isNullBranchNoise(e, realErrorAtOrBelow));
  const out: ValidationError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const { path, text } = describe(e, doc);
    const message = `${path || '(document)'}: ${text}`;
    if (seen.has(message)) continue;
    seen.add(message);
    out.push({ code: ruleCode(e.keyword), path, message });
    if (out.length >= MAX_VALIDATION_ERRORS) break;
  }
  return out;
}

/** The rule an error broke, as a code: the keyword in capitals, `maxLength` as MAX_LENGTH. */
function ruleCode(keyword: string): string {
  return keyword.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/**
 * A nullable reference is `anyOf: [{$ref}, {type: 'null'}]`. When the value is an object with a
 * defect inside, Ajv also reports "must be null" and "must match a schema in anyOf" at the value
 * itself: true but noise next to the real error further down, so they are dropped when one exists.
 * So is an `if` that failed (`must match "then" schema`) beside the `then` error that says what.
 */
function isNullBranchNoise(e: ErrorObject, realErrorAtOrBelow: Set<string>): boolean {
  if (!isNoiseKind(e)) return false;
  return realErrorAtOrBelow.has(e.instancePath);
}

function isNoiseKind(e: ErrorObject): boolean {
  return e.keyword === 'anyOf' || e.keyword === 'if' || (e.keyword === 'type' && e.params.type === 'null');
}

/**
 * Every instance path that has an error of another kind at it or below it: each such error's path
 * and all its ancestors. Built once, so that the noise check is linear in the errors; compared pair
 * by pair it was quadratic, and 1,000 empty cells (a 3 KB body) held the ingest service for seconds.
 */
function pathsWithRealErrors(all: ErrorObject[]): Set<string> {
  const paths = new Set<string>();
  for (const o of all) {
    if (isNoiseKind(o)) continue;
    let path = o.instancePath;
    while (!paths.has(path)) {
      paths.add(path);
      if (path === '') break;
      path = path.slice(0, path.lastIndexOf('/'));
    }
  }
  return paths;
}

function describe(e: ErrorObject, doc: unknown): { path: string; text: string } {
  switch (e.keyword) {
    case 'pattern':
    case 'maxLength': {
      const text = describeText(e, valueAt(doc, e.instancePath));
      if (text) return { path: e.instancePath, text };
      return { path: e.instancePath, text: e.message ?? e.keyword };
    }
    case 'required':
      return { path: child(e.instancePath, e.params.missingProperty), text: 'is required but missing' };
    case 'additionalProperties':
      return {
        path: child(e.instancePath, e.params.additionalProperty),
        text: 'is not a known property here (the schema allows no others)',
      };
    case 'const':
      return { path: e.instancePath, text: `must be ${JSON.stringify(e.params.allowedValue)}` };
    case 'enum':
      return {
        path: e.instancePath,
        text: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'propertyNames':
      return { path: child(e.instancePath, e.params.propertyName), text: 'is not an allowed property name' };
    default:
      return { path: e.instancePath, text: e.message ?? e.keyword };
  }
}

/**
 * Free text that broke its field's rule, said so that its sender can fix it: which character and
 * where (Ajv's own message would quote the whole pattern), or how far over the limit it is.
 */
function describeText(e: ErrorObject, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (e.keyword === 'maxLength') {
    const limit = e.params.limit as number;
    return `is ${Array.from(value).length} characters long, over this field's limit of ${limit}; shorten it`;
  }
  // The free-text patterns are the only ones that open with a negated set from U+0000; the
  // multi-line one leaves a gap for tab and newline after U+0008.
  const pattern = String(e.params.pattern);
  if (!pattern.startsWith('^[^\\u0000-')) return undefined;
  const bad = findForbiddenChar(value, pattern.startsWith('^[^\\u0000-\\u0008'));
  if (!bad) return undefined;
  return `contains ${bad.description} at character ${bad.index}; remove it`;
}

/** The value a JSON Pointer names in `doc`, or undefined. */
function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A JSON Pointer one level down (RFC 6901 escaping). */
function child(parent: string, key: unknown): string {
  return `${parent}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
