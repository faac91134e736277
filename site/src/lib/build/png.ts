/**
 * How a build offers its charts as PNG, from REDIS_BENCHDB_SITE_PNG (integration/png-mode.mjs reads and
 * checks the same variable):
 * - `none` (the default): no PNG files, so no page links one. The Markdown snippet embeds the SVG, and
 *   pages share the site's card (/og.png, the one PNG drawn) as their Open Graph image.
 * - `all` (`pnpm site:build --png`): every chart's PNG is drawn at build time, for a static host.
 * - `on-request`: pages link PNGs that the publishing service draws from their SVG when first asked
 *   (packages/server, publish/png-on-request.ts). Drawing all of them at build time cost 8 minutes at
 *   10,000 results, and almost none is ever fetched.
 */
export type PngMode = 'none' | 'all' | 'on-request';

export function pngMode(env: NodeJS.ProcessEnv = process.env): PngMode {
  const v = env.REDIS_BENCHDB_SITE_PNG;
  return v === 'all' || v === 'on-request' ? v : 'none';
}

/** The PNG beside a chart's SVG, or null when this build has none to offer. */
export function pngOf(svgPath: string): string | null {
  return pngMode() === 'none' ? null : svgPath.replace(/\.svg$/, '.png');
}

/** A page's own Open Graph card, or undefined (the site's card) when this build has no PNG of it. */
export function ogCard(pngPath: string): string | undefined {
  return pngMode() === 'none' ? undefined : pngPath;
}
