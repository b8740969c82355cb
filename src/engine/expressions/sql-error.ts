// A run-time error of the native evaluator, as PostgreSQL raises it: the SQLSTATE in `code` and
// PostgreSQL's own message, so that a step failing on the native path reads exactly as one failing
// in PGlite (whose DatabaseError carries the same two members).

export class SqlError extends Error {
  override readonly name = 'SqlError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const outOfRange = (what: string): SqlError => new SqlError('22003', `${what} out of range`);
export const divisionByZero = (): SqlError => new SqlError('22012', 'division by zero');
