import type { Queryable } from '../database.js';

export async function deletePipeline(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM pipeline WHERE id = $1', [id]);
}
