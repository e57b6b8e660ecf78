import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import ivory from '../../eslint-rules/no-import-cycle.js';

// ARCHITECTURE "Boundaries": no import cycles, type-only ones included (import-x/no-cycle skips those).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-cycles-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const files: Record<string, string> = {
  'types-a.ts': "import type { B } from './types-b.js';\nexport interface A { readonly b?: B }\n",
  'types-b.ts': "import type { A } from './types-a.js';\nexport interface B { readonly a?: A }\n",
  'door/index.ts': "export type { Inner } from './inner.js';\n",
  'door/inner.ts': "import type { Outer } from '../outer.js';\nexport interface Inner { readonly outer?: Outer }\n",
  'outer.ts': "import type { Inner } from './door/index.js';\nexport interface Outer { readonly inner?: Inner }\n",
  'ground.ts': 'export const ground = 1;\n',
  'upper.ts': "import { ground } from './ground.js';\nimport type { A } from './types-a.js';\nexport const upper: A | number = ground;\n",
};
for (const [name, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
  fs.writeFileSync(path.join(root, name), text);
}

async function problems(): Promise<Record<string, string[]>> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { ivory },
        rules: { 'ivory/no-import-cycle': ['error', { root }] },
      },
    ],
  });
  const results = await eslint.lintFiles(['**/*.ts']);
  return Object.fromEntries(results.map((result) => [path.relative(root, result.filePath), result.messages.map((message) => message.message)]));
}

describe('ivory/no-import-cycle', () => {
  it('reports type-only cycles, re-exports through a door included, at each import in the cycle, and nothing else', async () => {
    const found = await problems();
    expect(found['types-a.ts']).toEqual(['Import cycle (type-only imports count, ARCHITECTURE "Boundaries"): types-a.ts → types-b.ts → types-a.ts']);
    expect(found['types-b.ts']).toEqual(['Import cycle (type-only imports count, ARCHITECTURE "Boundaries"): types-b.ts → types-a.ts → types-b.ts']);
    expect(found['outer.ts']).toEqual([
      `Import cycle (type-only imports count, ARCHITECTURE "Boundaries"): outer.ts → ${path.join('door', 'index.ts')} → ${path.join('door', 'inner.ts')} → outer.ts`,
    ]);
    expect(found['door/index.ts']).toHaveLength(1);
    expect(found['door/inner.ts']).toHaveLength(1);
    // Importing from a cycle is no cycle.
    expect(found['upper.ts']).toEqual([]);
    expect(found['ground.ts']).toEqual([]);
  });
});
