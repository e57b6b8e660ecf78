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

/** Where a compiled template's parameter comes from: a path into the input, or a constant of the statement. */
type TemplateSlot = { readonly path: readonly (string | number)[] } | { readonly constant: unknown };

/**
 * `compiledOnce` for a statement whose values are not all strings and may be
 * nested (a row per issuance, a record with bytes and dates): built and
 * compiled by Kysely once per `shape`, then run with the values of each new
 * `input`. The invoice-creation statement is built from three modules' parts
 * with ~50 values, and building it cost more Node CPU than anything else of
 * that request (decision 0019).
 *
 * `build` is called once with `input`'s leaves replaced by unique
 * placeholders, so it must pass every value it is given straight to Kysely
 * (no arithmetic, formatting or branching on a value: anything structural
 * goes into `shape` and the closure of `build`). That is checked, not trusted:
 * on the first run of each shape the statement is also built from the real
 * input, and its text and parameters must equal the template's, or the run
 * throws. Plain objects and arrays are walked; every other value (string,
 * number, bigint, boolean, null, Date, Buffer) is a leaf.
 */
export function compiledTemplate<Input extends object, Row>(
  build: (executor: Executor, input: Input) => Compilable<Row>,
): (executor: Executor, shape: string, input: Input) => Promise<Row[]> {
  const templates = new Map<string, { readonly query: CompiledQuery<Row>; readonly slots: readonly TemplateSlot[] }>();

  const compile = (executor: Executor, input: Input) => {
    const paths = new Map<string, readonly (string | number)[]>();
    const query = build(executor, withPlaceholders(input, [], paths) as Input).compile();
    const slots: TemplateSlot[] = query.parameters.map((parameter) => {
      const path = typeof parameter === 'string' ? paths.get(parameter) : undefined;
      return path === undefined ? { constant: parameter } : { path };
    });
    const real = build(executor, input).compile();
    const filled = fill(slots, input);
    if (real.sql !== query.sql || real.parameters.length !== filled.length || real.parameters.some((value, index) => !sameValue(value, filled[index]))) {
      throw new Error('compiled template: `build` must pass each value of its input to Kysely unchanged');
    }
    return { query, slots };
  };

  return async (executor, shape, input) => {
    let template = templates.get(shape);
    if (template === undefined) {
      template = compile(executor, input);
      templates.set(shape, template);
    }
    const { rows } = await executor.executeQuery<Row>({ ...template.query, parameters: fill(template.slots, input) });
    return rows;
  };
}

function withPlaceholders(value: unknown, path: readonly (string | number)[], paths: Map<string, readonly (string | number)[]>): unknown {
  if (Array.isArray(value)) return value.map((item, index) => withPlaceholders(item, [...path, index], paths));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPlaceholders(item, [...path, key], paths)]));
  }
  const placeholder = `\u0000template ${paths.size}\u0000`;
  paths.set(placeholder, path);
  return placeholder;
}

function fill(slots: readonly TemplateSlot[], input: object): unknown[] {
  return slots.map((slot) => ('path' in slot ? valueAt(input, slot.path) : slot.constant));
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input;
  // Paths come from walking an input of the same shape, so every step exists.
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function sameValue(left: unknown, right: unknown): boolean {
  if (left instanceof Date && right instanceof Date) return left.getTime() === right.getTime();
  if (left instanceof Uint8Array && right instanceof Uint8Array) return Buffer.compare(left, right) === 0;
  return Object.is(left, right);
}
