import type { FieldProblem } from '../errors.js';

/** One error of the route schema's validator (Ajv), as Fastify hands it on. */
export interface SchemaViolation {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The body as a whole: what `field` says when no one field is at fault. */
export const WHOLE_BODY = 'body';

/** Field names come from the caller (an unknown field may be anything): echoed back this long at most. */
const MAX_NAME_LENGTH = 100;

/**
 * What a schema violation says to the developer: the input's path
 * (`assets[1].token`, `limit`) and why it was refused. The validator stops at
 * the first violation (`allErrors: false`), but inside a union it reports each
 * branch and then the union: the union, read from the route's own schema,
 * gives the whole rule ("must be one of dark, light, system"), unless a branch
 * failed deeper inside the value, which is then the more precise answer.
 * Never throws.
 */
export function describeViolation(violations: readonly SchemaViolation[], schema: unknown, context: string): FieldProblem {
  const first = violations[0];
  if (first === undefined) return { field: WHOLE_BODY, reason: 'does not match the schema' };
  const root = context === 'body' ? WHOLE_BODY : context;
  const field = (instancePath: string, property?: string) => fieldPath(instancePath, property) || root;

  if (first.keyword === 'additionalProperties') return { field: field(first.instancePath, String(first.params.additionalProperty)), reason: 'unknown field' };
  if (first.keyword === 'required') return { field: field(first.instancePath, String(first.params.missingProperty)), reason: 'required' };

  const union = violations.find((violation) => violation.keyword === 'anyOf' && violation.instancePath === first.instancePath);
  if (union !== undefined) {
    const expected = expectation(schemaAt(schema, union.schemaPath.replace(/\/anyOf$/, '')));
    if (expected !== undefined) return { field: field(union.instancePath), reason: `must be ${expected}` };
  }
  return { field: field(first.instancePath), reason: reasonOf(first) };
}

/** `/assets/1/token` → `assets[1].token`; `property` is appended (an unknown or missing field's name). */
export function fieldPath(instancePath: string, property?: string): string {
  const steps = instancePath === '' ? [] : instancePath.slice(1).split('/').map((step) => step.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (property !== undefined) steps.push(property);
  let path = '';
  for (const step of steps) {
    if (/^(0|[1-9][0-9]*)$/.test(step) && path !== '') path += `[${step}]`;
    else path += `${path === '' ? '' : '.'}${shortened(step)}`;
  }
  return path;
}

function shortened(name: string): string {
  return name.length <= MAX_NAME_LENGTH ? name : `${name.slice(0, MAX_NAME_LENGTH)}…`;
}

function reasonOf(violation: SchemaViolation): string {
  const { params } = violation;
  const limit = Number(params.limit);
  switch (violation.keyword) {
    case 'type':
      return `must be ${typeNames(String(params.type).split(','))}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(shown).join(', ')}`;
    case 'maxLength':
      return `must be at most ${limit} characters`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
    case 'maxItems':
      return `must have at most ${limit} items`;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must have at least ${limit} items`;
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return `must be ${COMPARISONS[String(params.comparison)] ?? String(params.comparison)} ${limit}`;
    case 'pattern':
      return `must match the pattern ${String(params.pattern)}`;
    case 'format':
      return `must be a ${String(params.format)}`;
    default:
      return 'does not match the schema';
  }
}

/** What a union allows, in words: `one of dark, light` for literals, `a string or null` for types. */
function expectation(schema: unknown): string | undefined {
  const branches = (schema as { anyOf?: unknown } | undefined)?.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  const literals = branches.filter((branch) => isLiteral(branch)).map((branch) => (isNull(branch) ? null : (branch as { const: unknown }).const));
  if (literals.length === branches.length) return `one of ${literals.map(shown).join(', ')}`;
  const types = branches.map((branch) => (branch as { type?: unknown }).type);
  if (types.every((type) => typeof type === 'string')) return typeNames([...new Set(types as string[])]);
  return undefined;
}

function isLiteral(schema: unknown): boolean {
  return schema !== null && typeof schema === 'object' && ('const' in schema || isNull(schema));
}

function isNull(schema: unknown): boolean {
  return (schema as { type?: unknown }).type === 'null';
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const COMPARISONS: Readonly<Record<string, string>> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'a JSON object',
  null: 'null',
};

function typeNames(types: readonly string[]): string {
  const names = types.map((type) => TYPE_NAMES[type] ?? type);
  return names.length <= 1 ? (names[0] ?? 'of another type') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The part of the route schema a violation's `schemaPath` (`#/properties/theme/anyOf`) points at. */
function schemaAt(schema: unknown, schemaPath: string): unknown {
  if (!schemaPath.startsWith('#')) return undefined;
  let node = schema;
  for (const step of schemaPath.slice(1).split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
