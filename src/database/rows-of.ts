/** TypeORM answers an UPDATE or DELETE ... RETURNING on PostgreSQL as [rows, count], a SELECT as rows. */
export function rowsOf<Row = unknown>(result: unknown): Row[] {
  if (Array.isArray(result) && Array.isArray(result[0])) return result[0] as Row[];
  return result as Row[];
}
