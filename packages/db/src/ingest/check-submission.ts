import {
  canonicalJson,
  checkJsonStructure,
  checkSubmittedResult,
  describeProblems,
  ENVELOPE_SCHEMA_ID,
  type EnvelopeV1,
  JsonStructureError,
  type Problem,
  RESULT_SCHEMA_ID,
  type ResultV1,
  type VerifyFailure,
  verifyEnvelope,
} from '@redis-benchdb/result';
import { type EnvelopeParts, encodeEnvelope } from '../store/envelope-codec.js';
import { contentId } from './content-id.js';
import { IngestError } from './ingest-error.js';
import { type MeasurementRow, measurementRows } from './measurements.js';
import { type CellRow, cellRows, type ResultRow, resultRow, type WarningRow, warningRows } from './rows.js';

/** What a submission may be, and what its payload may be: named in every UNSUPPORTED_SCHEMA message. */
export const SUPPORTED_SCHEMAS = { envelope: [ENVELOPE_SCHEMA_ID], result: [RESULT_SCHEMA_ID] } as const;

export interface IngestOptions {
  /** Receipt time: `received_at`, and "now" for the timestamp checks. @default new Date() */
  now?: Date;
}

/**
 * A submission that passed every check, as the rows ingest writes. Plain strings, numbers, nulls and
 * bytes only, so that it crosses from a worker thread to the writer as it is.
 */
export interface CheckedSubmission {
  /** The content id: hex SHA-256 of the signed payload. */
  id: string;
  row: ResultRow;
  cells: CellRow[];
  warnings: WarningRow[];
  /**
   * The envelope as stored (store/envelope-codec.ts): encoded here, on the service's check threads,
   * so the writer only inserts it. A Buffer arrives from a worker thread as a Uint8Array.
   */
  envelope: EnvelopeParts;
  /** The measurements the copy check compares (copies.ts). */
  measurements: MeasurementRow[];
  /** runGroup.size, which the stored members must agree with (run-group.ts); null without a group. */
  runGroupSize: number | null;
}

/**
 * Every check ingest() makes, without the database: structure, JSON, envelope and result schemas,
 * signature, canonical form, histograms and plausibility. All the CPU of an ingest is here, so the
 * service runs it on worker threads, away from its event loop. Throws IngestError when refused.
 */
export function checkSubmission(body: string | Uint8Array, opts: IngestOptions = {}): CheckedSubmission {
  return checkParsedSubmission(parseSubmission(body), opts);
}

/**
 * The body as JSON, read once: UTF-8, then duplicate keys and nesting (MAX_JSON_DEPTH, the one depth
 * limit) in the text, before JSON.parse hides the one and pays for the other. Throws IngestError.
 */
export function parseSubmission(body: string | Uint8Array): unknown {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  try {
    checkJsonStructure(text, 'envelope');
  } catch (e) {
    if (e instanceof JsonStructureError) throw new IngestError(e.code, 400, e.message);
    throw e;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new IngestError('MALFORMED_JSON', 400, `malformed JSON: ${(e as Error).message}`);
  }
}

/** checkSubmission of a body parseSubmission read. */
export function checkParsedSubmission(doc: unknown, opts: IngestOptions = {}): CheckedSubmission {
  refuseOtherSchemas(doc);
  const verified = verifyEnvelope(doc);
  if (!verified.ok) throw verifyRefusal(verified);
  return checkVerified(doc as EnvelopeV1, verified.result, opts);
}

/**
 * For an envelope this process made a moment ago with signResult, which validated the result and
 * bound the key (run keeps its own result so): the checks after the signature's, and the rows,
 * without verifying again what was just signed here. Anything received goes through checkSubmission.
 */
export function checkSignedHere(envelope: EnvelopeV1, opts: IngestOptions = {}): CheckedSubmission {
  return checkVerified(envelope, JSON.parse(envelope.payload) as ResultV1, opts);
}

function checkVerified(envelope: EnvelopeV1, result: ResultV1, opts: IngestOptions): CheckedSubmission {
  const now = opts.now ?? new Date();
  const problems = checkSubmittedResult(result, { now });
  if (problems.length > 0) throw submissionRefusal(problems);
  const id = contentId(envelope.payload);
  const row = resultRow(result, {
    id,
    keyFingerprint: envelope.keyFingerprint,
    receivedAt: now.toISOString(),
  });
  return {
    id,
    row,
    // What was verified, not the bytes received: the same five fields in RFC 8785 form, so GET,
    // export and the site's raw view serve exactly the envelope that passed.
    envelope: encodeEnvelope(canonicalJson(envelope)),
    cells: cellRows(id, result.cells),
    warnings: warningRows(id, result),
    measurements: measurementRows(id, result),
    runGroupSize: result.runGroup?.size ?? null,
  };
}

function decodeUtf8(body: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new IngestError('MALFORMED_JSON', 400, 'malformed JSON: the body is not valid UTF-8');
  }
}

/** A document of another kind or version fails every later check; say the one thing that matters. */
function refuseOtherSchemas(doc: unknown): void {
  if (doc === null || typeof doc !== 'object' || !('schema' in doc)) return; // the envelope schema says what is missing
  const schema = (doc as { schema: unknown }).schema;
  if (typeof schema !== 'string' || schema === ENVELOPE_SCHEMA_ID) return;
  const hint =
    schema === RESULT_SCHEMA_ID
      ? ': this is an unsigned result; submit the signed envelope `redis-benchdb run` writes'
      : '';
  throw new IngestError(
    'UNSUPPORTED_SCHEMA',
    422,
    `unsupported submission schema ${JSON.stringify(schema)}${hint}; this redis-benchdb supports ${SUPPORTED_SCHEMAS.envelope.join(', ')}${NEWER}`,
  );
}

const NEWER = ' (a newer version may need a newer server)';

/** verifyEnvelope's code, as the refusal the service answers with (its code, status and words). */
function verifyRefusal(f: VerifyFailure): IngestError {
  const list = describeProblems(f.problems);
  switch (f.code) {
    case 'DUPLICATE_KEY':
    case 'TOO_DEEP':
      return new IngestError(f.code, 400, `invalid envelope: ${f.message}`);
    case 'MALFORMED_JSON':
      return new IngestError('MALFORMED_JSON', 400, `malformed JSON: ${f.message}`);
    case 'UNSUPPORTED_SCHEMA':
      return new IngestError('UNSUPPORTED_SCHEMA', 422, `${f.message}${NEWER}`);
    case 'INVALID_ENVELOPE':
      return new IngestError('INVALID_ENVELOPE', 422, `invalid envelope: ${list}`);
    case 'PAYLOAD_NOT_JSON':
      return new IngestError('INVALID_ENVELOPE', 422, `invalid envelope: ${f.message}`);
    case 'NOT_CANONICAL':
      // Signed as sent, but JSON.parse read 1e999 as Infinity (which has no canonical form): say so.
      if (f.problems[0]?.code === 'IMPLAUSIBLE') return submissionRefusal(f.problems);
      return new IngestError('INVALID_ENVELOPE', 422, `invalid envelope: ${f.message} (RFC 8785)`);
    case 'INVALID_RESULT':
      return new IngestError('INVALID_RESULT', 422, `invalid result: ${list}`);
    case 'KEY_MISMATCH':
      return new IngestError('KEY_MISMATCH', 422, `refused: ${list}`);
    case 'BAD_PUBLIC_KEY':
    case 'FINGERPRINT_MISMATCH':
    case 'BAD_SIGNATURE':
      return new IngestError('BAD_SIGNATURE', 422, `bad signature: ${f.message}`);
  }
}

/** The first broken rule of checkSubmittedResult, whose codes are the service's own. */
function submissionRefusal(problems: readonly Problem[]): IngestError {
  const code = problems[0]!.code;
  if (code === 'IMPLAUSIBLE')
    return new IngestError('IMPLAUSIBLE', 422, `implausible result: ${describeProblems(problems)}`);
  if (code === 'INVALID_HISTOGRAM')
    return new IngestError('INVALID_HISTOGRAM', 422, `invalid histogram: ${describeProblems(problems)}`);
  if (code === 'FINISHED_IN_FUTURE' || code === 'IDENTITY_TEXT' || code === 'WRONG_REPLIES')
    return new IngestError(code, 422, problems[0]!.message);
  throw new Error(`a submission check gave the unknown code ${code}`);
}
