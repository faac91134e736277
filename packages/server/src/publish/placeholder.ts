/** What a result page's URL shows until the build that includes it is served. */
export interface PlaceholderFacts {
  id: string;
  /** When the service stored the result (ISO 8601). */
  receivedAt: string;
  /** When its page should be served (ms since the epoch), or null when no build is under way or due. */
  expectedAt: number | null;
  /** The last build failed: the page waits for a build that succeeds. */
  failed: boolean;
  now: number;
}

/** Reload often enough to show the page soon after it appears, not so often as to hammer the service. */
export function refreshSeconds(f: PlaceholderFacts): number {
  if (f.expectedAt === null) return 30;
  return Math.min(30, Math.max(2, Math.ceil((f.expectedAt - f.now) / 1000)));
}

/** A small page that says the result was received, when, and roughly when its page appears; it reloads itself. */
export function placeholderHtml(f: PlaceholderFacts): string {
  const when =
    f.expectedAt === null
      ? f.failed
        ? 'The last build of the site failed; its page appears after the next build that succeeds.'
        : 'Its page appears when the next build of the site finishes.'
      : `Its page should appear by ${new Date(f.expectedAt).toISOString()} (in about ${wait(f.expectedAt - f.now)}), when the build that includes it finishes.`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${refreshSeconds(f)}">
<meta name="robots" content="noindex">
<title>Result received: ${f.id.slice(0, 12)}</title>
</head>
<body>
<main>
<h1>Result received</h1>
<p>The result <code>${f.id}</code> was received at <time datetime="${f.receivedAt}">${f.receivedAt}</time>.</p>
<p id="expected">${when}</p>
<p>This page reloads itself. The result as stored: <a href="/api/v1/results/${f.id}">/api/v1/results/${f.id}</a>.</p>
</main>
</body>
</html>
`;
}

function wait(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 90 ? `${s} s` : `${Math.round(s / 60)} min`;
}
