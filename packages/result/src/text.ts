// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for.
import { resultV1Schema } from './generated/schemas.js';
import { normalizeIdentityText } from './identity-text.js';

/**
 * Free text in a result (a CPU model, a server version, a label) is shown on the site, in a
 * terminal and in chart SVG. The schemas refuse in it what would break or deceive those readers:
 * control characters (C0, DEL, C1: a NUL or BEL makes the SVG not XML), the line and paragraph
 * separators, and the bidirectional embedding, override and isolate controls (an unpaired U+202E
 * reverses the page's own words after it). Real probe output never has any of them, so they are
 * refused outright rather than checked for pairing. Multi-line fields (notes, quotes, errors) may
 * hold tab and newline. These sets must match the `pattern` of every free-text field in schemas/.
 */
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
const FORBIDDEN_MULTILINE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

const FORBIDDEN_MULTILINE_ALL = new RegExp(FORBIDDEN_MULTILINE.source, 'gu');

/**
 * The text without any character a multi-line free-text field refuses (tab and newline stay), for
 * showing text stored before the schemas refused them. Unlike cleanText, nothing else changes.
 */
export function stripForbiddenChars(text: string): string {
  return text.replace(FORBIDDEN_MULTILINE_ALL, '');
}

const BIDI_NAMES: Record<number, string> = {
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
};

export interface ForbiddenChar {
  /** Position in code points (what the schema's maxLength counts), 0-based. */
  index: number;
  codePoint: number;
  /** `a control character (U+0007)`, `a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE)`. */
  description: string;
}

/** The first character free text may not hold, or undefined when there is none. */
export function findForbiddenChar(text: string, multiline = false): ForbiddenChar | undefined {
  const re = multiline ? FORBIDDEN_MULTILINE : FORBIDDEN;
  let index = 0;
  for (const ch of text) {
    if (re.test(ch)) {
      const codePoint = ch.codePointAt(0)!;
      return { index, codePoint, description: describeChar(codePoint) };
    }
    index++;
  }
  return undefined;
}

function describeChar(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const bidi = BIDI_NAMES[cp];
  if (bidi) return `a bidirectional control (${hex} ${bidi})`;
  if (cp === 0x2028 || cp === 0x2029) return `a line or paragraph separator (${hex})`;
  return `a control character (${hex})`;
}

const STRIP = /[\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F\u202A-\u202E\u2066-\u2069]/gu;
// Tab, line feed, vertical tab, form feed, carriage return, NEL and the Unicode separators end or
// space words: they become one space, so `Xeon\nE5` stays two words.
const SPACES = /[\s\u0085]+/gu;

/**
 * Text a probe read (a CPU model from /proc/cpuinfo, INFO's os, a hostname), made fit for a
 * single-line free-text field: control, bidi, invisible and format characters removed, Unicode NFKC
 * (identity-text.ts: what signing and ingest require of names of kinds and versions), every run of
 * white space one space, trimmed, and at most `max` code points (a cut string ends in `…`). No I/O.
 */
export function cleanText(text: string, max: number): string {
  const clean = normalizeIdentityText(text.replace(STRIP, '')).replace(SPACES, ' ').trim();
  const chars = Array.from(clean);
  if (chars.length <= max) return clean;
  // Three dots, not U+2026: the ellipsis is not in NFKC, so a cut identity field would fail the normal
  // form it was cleaned to (identity-text.ts) and the runner would refuse to sign its own result.
  return `${chars
    .slice(0, Math.max(0, max - 3))
    .join('')
    .trimEnd()}...`;
}

/** cleanText for a nullable field: null stays null, and so does text that cleans to nothing. */
export function cleanNullableText(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  const clean = cleanText(text, max);
  return clean === '' ? null : clean;
}

const machine = resultV1Schema.$defs.Machine.properties;
const server = resultV1Schema.$defs.Server.properties;

/** The maxLength of the free-text fields probes fill, read from schemas/result.v1.schema.json. */
export const TEXT_MAX = {
  cpuModel: machine.cpu.properties.model.maxLength,
  cpuVendor: machine.cpu.properties.vendor.maxLength,
  hypervisor: machine.virtualization.properties.hypervisor.maxLength,
  container: machine.virtualization.properties.container.maxLength,
  cloudProvider: machine.cloud.properties.provider.maxLength,
  instanceType: machine.cloud.properties.instanceType.maxLength,
  osPlatform: machine.os.properties.platform.maxLength,
  osDistro: machine.os.properties.distro.maxLength,
  osRelease: machine.os.properties.release.maxLength,
  osKernel: machine.os.properties.kernel.maxLength,
  osArch: machine.os.properties.arch.maxLength,
  thpDefrag: machine.thp.properties.defrag.maxLength,
  cpuGovernor: machine.cpuGovernor.maxLength,
  mitigation: machine.mitigations.additionalProperties.maxLength,
  unknownReason: resultV1Schema.$defs.Unknown.additionalProperties.maxLength,
  serverVersion: server.version.maxLength,
  serverGitSha: server.gitSha.maxLength,
  serverBuildId: server.buildId.maxLength,
  serverAllocator: server.allocator.maxLength,
  serverSave: server.persistence.properties.save.maxLength,
  serverAppendfsync: server.persistence.properties.appendfsync.maxLength,
  serverMaxmemoryPolicy: server.maxmemoryPolicy.maxLength,
  serverMultiplexingApi: server.multiplexingApi.maxLength,
  serverOs: server.os.maxLength,
  serverLoglevel: server.loglevel.maxLength,
  clusterNodeVersion: resultV1Schema.$defs.ClusterNode.properties.version.maxLength,
  clusterNodeHealth: resultV1Schema.$defs.ClusterNode.properties.health.maxLength,
  host: resultV1Schema.properties.target.properties.host.maxLength,
  error: resultV1Schema.$defs.Cell.properties.error.maxLength,
  warningMessage: resultV1Schema.$defs.Warning.properties.message.maxLength,
  cellLabel: resultV1Schema.$defs.Cell.properties.label.maxLength,
  cellTest: resultV1Schema.$defs.Cell.properties.test.maxLength,
} as const;
