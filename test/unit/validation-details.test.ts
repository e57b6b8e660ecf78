import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { describeViolation, fieldPath, type SchemaViolation } from '../../src/platform/http/validation-details.js';

// Issue 20 item 4: what a schema violation says, as {field, reason}. The violations below are
// the ones Ajv reports (allErrors: false) for these schemas; the HTTP core passes them in as is.

const violation = (instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown> = {}): SchemaViolation => ({
  instancePath,
  schemaPath,
  keyword,
  params,
});

const Body = Type.Object({
  theme: Type.Union([Type.Literal('dark'), Type.Literal('light')]),
  note: Type.Union([Type.String(), Type.Null()]),
  terms: Type.Union([Type.Object({ bps: Type.Integer() }), Type.Null()]),
});

describe('fieldPath', () => {
  it('writes JSON pointers as paths: indexes in brackets, properties after dots, ~1 and ~0 unescaped', () => {
    expect(fieldPath('')).toBe('');
    expect(fieldPath('/assets/1/token')).toBe('assets[1].token');
    expect(fieldPath('/assets/1', 'memo')).toBe('assets[1].memo');
    expect(fieldPath('', 'a/b~c')).toBe('a/b~c');
    expect(fieldPath('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});

describe('describeViolation', () => {
  it('a union of literals lists what it allows, read from the route schema', () => {
    const violations = [
      violation('/theme', '#/properties/theme/anyOf/0/const', 'const', { allowedValue: 'dark' }),
      violation('/theme', '#/properties/theme/anyOf/1/const', 'const', { allowedValue: 'light' }),
      violation('/theme', '#/properties/theme/anyOf', 'anyOf'),
    ];
    expect(describeViolation(violations, Body, 'body')).toEqual({ field: 'theme', reason: 'must be one of dark, light' });
  });

  it('a union of types names each type', () => {
    const violations = [
      violation('/note', '#/properties/note/anyOf/0/type', 'type', { type: 'string' }),
      violation('/note', '#/properties/note/anyOf/1/type', 'type', { type: 'null' }),
      violation('/note', '#/properties/note/anyOf', 'anyOf'),
    ];
    expect(describeViolation(violations, Body, 'body')).toEqual({ field: 'note', reason: 'must be a string or null' });
  });

  it('a branch that failed deeper inside the value is the more precise answer', () => {
    const violations = [
      violation('/terms/bps', '#/properties/terms/anyOf/0/properties/bps/type', 'type', { type: 'integer' }),
      violation('/terms', '#/properties/terms/anyOf/1/type', 'type', { type: 'null' }),
      violation('/terms', '#/properties/terms/anyOf', 'anyOf'),
    ];
    expect(describeViolation(violations, Body, 'body')).toEqual({ field: 'terms.bps', reason: 'must be an integer' });
  });

  it('limits, patterns and formats say their bound', () => {
    expect(describeViolation([violation('/limit', '#/properties/limit/pattern', 'pattern', { pattern: '^[0-9]{1,4}$' })], undefined, 'querystring')).toEqual({
      field: 'limit',
      reason: 'must match the pattern ^[0-9]{1,4}$',
    });
    expect(describeViolation([violation('/assets', '#/properties/assets/maxItems', 'maxItems', { limit: 50 })], undefined, 'body').reason).toBe(
      'must have at most 50 items',
    );
    expect(describeViolation([violation('/n', '#/properties/n/minimum', 'minimum', { comparison: '>=', limit: 0 })], undefined, 'body').reason).toBe('must be at least 0');
    expect(describeViolation([violation('/code', '#/properties/code/maxLength', 'maxLength', { limit: 64 })], undefined, 'body').reason).toBe(
      'must be at most 64 characters',
    );
    expect(describeViolation([violation('/id', '#/properties/id/format', 'format', { format: 'uuid' })], undefined, 'body').reason).toBe('must be a uuid');
  });

  it('the body as a whole is `body`; a query parameter is its name', () => {
    expect(describeViolation([violation('', '#/type', 'type', { type: 'object' })], Body, 'body')).toEqual({ field: 'body', reason: 'must be a JSON object' });
    expect(describeViolation([violation('', '#/required', 'required', { missingProperty: 'limit' })], undefined, 'querystring')).toEqual({
      field: 'limit',
      reason: 'required',
    });
  });

  it('never throws on what it does not know: a keyword it has no words for, a schema path it cannot follow', () => {
    expect(describeViolation([violation('/x', '#/properties/x/if', 'if')], undefined, 'body')).toEqual({ field: 'x', reason: 'does not match the schema' });
    expect(describeViolation([violation('/x', '#/nowhere/anyOf/0/type', 'type', { type: 'string' }), violation('/x', '#/nowhere/anyOf', 'anyOf')], Body, 'body')).toEqual({
      field: 'x',
      reason: 'must be a string',
    });
    expect(describeViolation([], Body, 'body')).toEqual({ field: 'body', reason: 'does not match the schema' });
  });
});
