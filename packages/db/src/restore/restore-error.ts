/** Why a restore was refused; the database it would have replaced is untouched. */
export type RestoreErrorCode =
  | 'BACKUP_MISSING'
  | 'BACKUP_UNREADABLE'
  | 'BACKUP_CORRUPT'
  | 'NOT_A_BENCHDB'
  /** Its tables, indexes, views or triggers are not the ones this code's migrations make. */
  | 'BACKUP_SCHEMA'
  | 'DATABASE_IN_USE';

export class RestoreError extends Error {
  override name = 'RestoreError';

  constructor(
    readonly code: RestoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}
