/**
 * INFO text → field map: `# Section` headers and blank lines skipped, each `name:value` line kept
 * (a value may hold colons). Here because both the engine's control plane and the probe read INFO,
 * and neither may import the other; this package is the one both depend on.
 */
export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}
