import { parseHTML } from 'linkedom';

/**
 * The DOM charts are drawn into. Charts render at build time, on the server: Plot draws into a DOM
 * we give it (linkedom, a light one; a chart takes about 2 ms) and serialize() below keeps the SVG
 * text. So a page shows its charts with JavaScript off, and the same text is the downloadable .svg.
 */
export const { document } = parseHTML('<!doctype html><html><head></head><body></body></html>');

/**
 * XML serialisation, by hand: linkedom's outerHTML leaves "<" and "&" raw in attribute values, which
 * HTML tolerates but an .svg file (XML) does not, and a submitter's CPU model reaches attributes.
 * Everything of ours is elements, attributes and text, so this is short.
 */
const GEOMETRY = new Set([
  'd',
  'transform',
  'points',
  'x',
  'y',
  'x1',
  'x2',
  'y1',
  'y2',
  'cx',
  'cy',
  'width',
  'height',
]);

export function serialize(node: Node): string {
  const parts: string[] = [];
  serializeInto(node, parts);
  return parts.join('');
}

// Every chart of a 10,000-result build passes through here (about 60,000 of them): one array of
// parts, no intermediate strings per element, and values that need no escaping left as they are.
function serializeInto(node: Node, out: string[]): void {
  if (node.nodeType === 3) {
    out.push(escapeXml(node.textContent ?? '', false));
    return;
  }
  if (node.nodeType !== 1) return;
  const el = node as Element;
  // localName, not tagName: in an HTML document the DOM upper-cases tagName (<G>, <PATH>), which
  // HTML's parser forgives but an .svg file or resvg does not (they drew a blank chart). Plot makes
  // every element with createElementNS, so localName keeps SVG's own case (clipPath).
  const name = el.localName;
  out.push('<', name);
  for (const a of Array.from(el.attributes)) {
    // A tenth of a pixel is finer than any screen shows; Plot writes up to 15 digits. About a third of a chart's bytes.
    const v = GEOMETRY.has(a.name) && a.value.includes('.') ? a.value.replace(/(\.\d)\d+/g, '$1') : a.value;
    out.push(' ', a.name, '="', escapeXml(v, true), '"');
  }
  let child = el.firstChild;
  if (child === null) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (; child !== null; child = child.nextSibling) serializeInto(child, out);
  out.push('</', name, '>');
}

/**
 * Characters XML 1.0 does not allow, even escaped: C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
 * surrogates without their pair. One of them in a CPU model would make the .svg unreadable and fail
 * the PNG step of the build, so each becomes U+FFFD, the replacement character.
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
  /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Anything escapeXml would change; most values (numbers, paths) have none. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const NEEDS_ESCAPE = /[&<>"\0-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;

export function escapeXml(s: string, attribute: boolean): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  const r = s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? r.replace(/"/g, '&quot;') : r;
}
