import unhomoglyph from 'unhomoglyph';
import type { ImportedV1 } from './generated/imported-v1.js';
import type { ResultV1 } from './generated/result-v1.js';

/**
 * One normal form for the text that names a machine kind or a version (a CPU model, a hypervisor, a
 * server version...). These strings become identity keys (identity.ts) and page titles: "AMD ЕРYC"
 * with two Cyrillic letters, or "7.4.1" followed by a zero-width space, reads exactly like the genuine
 * name yet makes a kind or version of its own, and its own row on the home page (issue 39).
 *
 * Such text is refused, not normalised, at signing and at ingest: the signed bytes cannot change, and
 * a key made from normalised text while the page shows the signed text would put an invisible
 * difference back on the page. The probes normalise what they read (text.ts cleanText), so a real run
 * always passes. The rules, in the order checked (the first broken one is reported):
 * 1. no invisible or format character: default-ignorable code points (zero-width space and joiners,
 *    soft hyphen, BOM, bidi marks, variation selectors), format characters, private-use and
 *    unassigned code points, and no space but U+0020 (no-break, thin, ideographic...);
 * 2. Unicode NFKC (no fullwidth letters, ligatures, superscripts, "™" for "TM");
 * 3. not mixed-script: Latin letters are not mixed with letters of another script, except Han, kana,
 *    Hangul and Bopomofo, which Unicode TR39 allows beside Latin ("highly restrictive");
 * 4. not a whole-script lookalike: text with a non-ASCII character whose TR39 skeleton (NFD, the
 *    confusables mapping, NFD) is all ASCII reads as an ASCII name ("ЕРУС" is "EPYC") and is refused.
 * The skeleton's mapping is Unicode's confusables.txt, from the unhomoglyph package (nodeca), rather
 * than a table of our own. Pure, no I/O.
 */

/** One field that broke the normal form: where, its text, and what is wrong with it. */
export interface IdentityTextProblem {
  /** JSON Pointer into the document, e.g. `/environment/client/cpu/model`. */
  path: string;
  text: string;
  /** Why, and what to write instead: `U+200B (a zero-width or format character) at 5: remove it`. */
  problem: string;
}

export type IdentityTextErrorCode = 'IDENTITY_TEXT';

/** A document that names a kind or a version in text outside the normal form. */
export class IdentityTextError extends Error {
  override name = 'IdentityTextError';
  readonly code: IdentityTextErrorCode = 'IDENTITY_TEXT';

  constructor(readonly problems: readonly IdentityTextProblem[]) {
    super(`lookalike or invisible characters in identity text: ${describeIdentityTextProblems(problems)}`);
  }
}

/** The problems as one line: `/environment/client/cpu/model "AMD ЕРYC": ...; ...`. */
export function describeIdentityTextProblems(problems: readonly IdentityTextProblem[]): string {
  const first = problems.slice(0, 3).map((p) => `${p.path} ${JSON.stringify(p.text)}: ${p.problem}`);
  const more = problems.length - first.length;
  return `${first.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}\p{Cn}]/u;
/** Any white space but the ASCII space: U+00A0, U+2009, U+3000, tabs... */
const OTHER_SPACE = /(?! )[\s\p{Zs}]/u;
const NO_SCRIPT = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
const LATIN = /\p{Script_Extensions=Latin}/u;
/** Scripts TR39's "highly restrictive" level allows beside Latin (Japanese, Chinese, Korean text). */
const BESIDE_LATIN =
  /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}\p{Script_Extensions=Bopomofo}]/u;
/** Scripts named in a message; others are "another script". Those with letters that look Latin first. */
const NAMED_SCRIPTS = ['Cyrillic', 'Greek', 'Armenian', 'Cherokee', 'Coptic', 'Georgian', 'Arabic', 'Hebrew'];
const NAMED = NAMED_SCRIPTS.map((name) => ({ name, re: new RegExp(`\\p{Script_Extensions=${name}}`, 'u') }));

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
const ASCII = /^[\x20-\x7E]*$/;

/** What is wrong with one identity text, or null when it is in the normal form. */
export function identityTextProblem(text: string): string | null {
  const chars = Array.from(text);
  for (const [i, ch] of chars.entries()) {
    const cp = ch.codePointAt(0)!;
    if (INVISIBLE.test(ch))
      return `${hex(cp)} (an invisible, format or unassigned character) at ${i}: remove it`;
    if (OTHER_SPACE.test(ch)) return `${hex(cp)} (a space other than U+0020) at ${i}: write a plain space`;
  }
  const nfkc = text.normalize('NFKC');
  if (nfkc !== text) {
    const at = chars.findIndex((ch) => ch.normalize('NFKC') !== ch);
    const what =
      at >= 0
        ? `${hex(chars[at]!.codePointAt(0)!)} at ${at} is a compatibility form (fullwidth, ligature, superscript...) of ${JSON.stringify(chars[at]!.normalize('NFKC'))}`
        : 'it is not in Unicode NFKC form';
    return `${what}: write ${JSON.stringify(nfkc)}`;
  }
  return mixedScript(chars) ?? wholeScriptLookalike(text, chars);
}

function mixedScript(chars: readonly string[]): string | null {
  const scripted = chars.map((ch, i) => ({ ch, i })).filter(({ ch }) => !NO_SCRIPT.test(ch));
  if (!scripted.some(({ ch }) => LATIN.test(ch))) return null;
  const other = scripted.find(({ ch }) => !LATIN.test(ch) && !BESIDE_LATIN.test(ch));
  if (!other) return null;
  const script = NAMED.find((s) => s.re.test(other.ch))?.name ?? 'another script';
  return `mixes Latin letters with ${script} ones (${hex(other.ch.codePointAt(0)!)} at ${other.i}), which makes a lookalike of another name: write it in one script, as the machine or server reports it`;
}

function wholeScriptLookalike(text: string, chars: readonly string[]): string | null {
  if (ASCII.test(text)) return null;
  const skeleton = unhomoglyph(text.normalize('NFD')).normalize('NFD');
  if (!ASCII.test(skeleton)) return null;
  const at = chars.findIndex((ch) => !ASCII.test(ch));
  return `reads as the ASCII text ${JSON.stringify(skeleton)} (Unicode TR39 skeleton; ${hex(chars[at]!.codePointAt(0)!)} at ${at}): a lookalike of an ASCII name; write the name in ASCII`;
}

type Field = readonly [path: string, text: string | null | undefined];

/** The fields of a signed result that name a kind or a version: what machine and server identity read. */
function resultFields(r: ResultV1): Field[] {
  const { client: m, server: s } = r.environment;
  const fields: Field[] = [
    ['/environment/client/cpu/vendor', m.cpu.vendor],
    ['/environment/client/cpu/model', m.cpu.model],
    ['/environment/client/virtualization/hypervisor', m.virtualization.hypervisor],
    ['/environment/client/virtualization/container', m.virtualization.container],
    ['/environment/client/cloud/provider', m.cloud?.provider],
    ['/environment/client/cloud/instanceType', m.cloud?.instanceType],
    ['/environment/client/os/platform', m.os.platform],
    ['/environment/client/os/distro', m.os.distro],
    ['/environment/client/os/release', m.os.release],
    ['/environment/client/os/kernel', m.os.kernel],
    ['/environment/client/os/arch', m.os.arch],
    ['/environment/client/cpuGovernor', m.cpuGovernor],
    ['/environment/server/version', s.version],
    ['/environment/server/gitSha', s.gitSha],
    ['/environment/server/buildId', s.buildId],
    ['/environment/server/allocator', s.allocator],
    ['/environment/server/build/tag', s.build?.tag],
    ['/environment/server/build/project', s.build?.project],
    ['/environment/server/build/commit', s.build?.commit],
    ['/environment/server/persistence/save', s.persistence.save],
    ['/environment/server/persistence/appendfsync', s.persistence.appendfsync],
    ['/environment/server/maxmemoryPolicy', s.maxmemoryPolicy],
    ['/environment/server/multiplexingApi', s.multiplexingApi],
    ['/environment/server/os', s.os],
    ['/runner/version', r.runner.version],
    ['/runner/nodeVersion', r.runner.nodeVersion],
  ];
  for (const [i, n] of (r.target.cluster?.nodes ?? []).entries())
    fields.push([`/target/cluster/nodes/${i}/version`, n.version]);
  return fields;
}

/** The fields of an imported result that name a kind or a version (importedMachineFacts reads them). */
function importedFields(r: ImportedV1): Field[] {
  return [
    ['/machine/cpuModel', r.machine.cpuModel],
    ['/machine/provider', r.machine.provider],
    ['/machine/instanceType', r.machine.instanceType],
    ['/server/version', r.server.version],
    ['/tool/version', r.tool?.version],
  ];
}

function problemsOf(fields: readonly Field[]): IdentityTextProblem[] {
  const out: IdentityTextProblem[] = [];
  for (const [path, text] of fields) {
    if (typeof text !== 'string') continue;
    const problem = identityTextProblem(text);
    if (problem) out.push({ path, text, problem });
  }
  return out;
}

/** Every identity field of a schema-valid result outside the normal form; empty when all are in it. */
export function identityTextProblems(r: ResultV1): IdentityTextProblem[] {
  return problemsOf(resultFields(r));
}

/** identityTextProblems for an imported (published) result. */
export function importedIdentityTextProblems(r: ImportedV1): IdentityTextProblem[] {
  return problemsOf(importedFields(r));
}

/** Throws IdentityTextError when a field of the result is outside the normal form. */
export function checkIdentityText(r: ResultV1): void {
  const problems = identityTextProblems(r);
  if (problems.length > 0) throw new IdentityTextError(problems);
}

const STRIP_INVISIBLE = new RegExp(INVISIBLE.source, 'gu');
const SPACE = new RegExp(OTHER_SPACE.source, 'gu');

/**
 * Text a probe read, put in the normal form where that is a matter of encoding: invisible and format
 * characters removed, other spaces made U+0020, NFKC. A mixed-script name is not changed (which
 * script was meant cannot be told), so it still fails identityTextProblem.
 */
export function normalizeIdentityText(text: string): string {
  return text.replace(STRIP_INVISIBLE, '').replace(SPACE, ' ').normalize('NFKC');
}
