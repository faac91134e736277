/** Text into HTML text or a double-quoted attribute. Everything a submitter wrote passes through here or through Astro's own escaping. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
