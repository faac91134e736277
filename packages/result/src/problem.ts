/**
 * One coded outcome of a check on a document: which rule it broke (`code`, stable, for programs),
 * where (`path`), and why in words (`message`, for people). Every check of the trust path returns
 * these, so that its callers (the ingest service, the CLI) decide by the code, never by the wording.
 */
export interface Problem<Code extends string = string> {
  code: Code;
  /** JSON Pointer of the offending value in the document the check read; '' is the whole document. */
  path: string;
  message: string;
}

/** Past this many, a list of problems is cut: the first ones say enough, and the rest are counted. */
const LISTED = 3;

/** The problems' messages as one line: the first three, then how many more. */
export function describeProblems(problems: readonly Pick<Problem, 'message'>[]): string {
  const first = problems.slice(0, LISTED).map((p) => p.message);
  const more = problems.length - first.length;
  return `${first.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}
