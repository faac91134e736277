/** The database file's schema version does not match what this code knows. */
export class SchemaVersionError extends Error {
  override name = 'SchemaVersionError';

  constructor(
    readonly code: 'SCHEMA_TOO_NEW' | 'SCHEMA_TOO_OLD',
    /** The file's version. */
    readonly version: number,
    /** The highest version this code knows. */
    readonly known: number,
    message: string,
  ) {
    super(message);
  }
}
