// The values of REDIS_BENCHDB_SITE_PNG (what each means: src/lib/build/png.ts). Checked once, when the build
// starts, so that a typo fails the build with the accepted values instead of quietly drawing nothing.
export const PNG_MODES = ['none', 'all', 'on-request'];

/** The build's PNG mode; throws on a value it does not know. `0` is the old spelling of `none`. */
export function pngModeFromEnv(env = process.env) {
  const v = env.REDIS_BENCHDB_SITE_PNG;
  if (v === undefined || v === '' || v === '0') return 'none';
  if (PNG_MODES.includes(v)) return v;
  throw new Error(
    `invalid REDIS_BENCHDB_SITE_PNG: ${v} (one of ${PNG_MODES.join(', ')}; pnpm site:build --png draws every PNG)`,
  );
}
