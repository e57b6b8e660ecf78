import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './database.js';

/**
 * A query built and compiled by Kysely once and then run with new parameter
 * values: the hot paths (API-key lookup, checkout, the access read of invoice
 * creation) skip the query builder and compiler, which cost them more CPU than
 * the database did. Once per process, not per executor: both storage kinds
 * compile with Kysely's PostgreSQL compiler and no plugin, so the text is the
 * same for any database and any of its transactions.
 *
 * `build` receives one placeholder string per parameter and must pass each
 * one as a value (never inside SQL text); every occurrence of a placeholder in
 * the compiled parameters is replaced by the value given in its place.
 */
export function compiledOnce<Row>(
  placeholderCount: number,
  build: (executor: Executor, ...placeholders: string[]) => Compilable<Row>,
): (executor: Executor, ...values: string[]) => Promise<Row[]> {
  const placeholders = Array.from({ length: placeholderCount }, (_, index) => `\u0000placeholder ${index}\u0000`);
  let compiled: { readonly query: CompiledQuery<Row>; readonly slots: readonly number[] } | undefined;

  const compile = (executor: Executor) => {
    const query = build(executor, ...placeholders).compile();
    const slots = query.parameters.map((parameter) => placeholders.indexOf(parameter as string));
    for (const index of placeholders.keys()) {
      if (!slots.includes(index)) throw new Error(`compiled query: placeholder ${index} is not a parameter`);
    }
    compiled = { query, slots };
    return compiled;
  };

  return async (executor, ...values) => {
    const { query, slots } = compiled ?? compile(executor);
    if (values.length !== placeholderCount) throw new Error(`compiled query: ${placeholderCount} values expected, got ${values.length}`);
    const parameters = query.parameters.map((parameter, position) => {
      const slot = slots[position] ?? -1;
      return slot === -1 ? parameter : values[slot];
    });
    const { rows } = await executor.executeQuery<Row>({ ...query, parameters });
    return rows;
  };
}
