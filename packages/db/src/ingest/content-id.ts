// The id is computed in result/ (the CLI's spool needs it without SQLite); db/ keeps its export.
export { contentId } from '@redis-benchdb/result';

/** Where the site shows a result. */
export function resultPagePath(id: string): string {
  return `/results/${id}/`;
}
