import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineConflicts, productionPackages, type InstalledPackage } from '../../scripts/production-packages.mjs';

// Issue 20 item 2: package.json `engines.node` is a promise to whoever installs Ivory. A runtime
// dependency that wants a newer Node than the lowest one promised makes `npm ci` print
// EBADENGINE there, and may not run at all; this keeps the promise true.

const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };

function withEngines(name: string, engines: string | null): InstalledPackage {
  return { name, version: '1.0.0', licence: 'MIT', engines, platform: false };
}

describe('engineConflicts', () => {
  it('a range that leaves out the lowest declared Node conflicts; one that admits it does not', () => {
    const conflicts = engineConflicts(
      [
        withEngines('older-floor', '>=20.0.0'),
        withEngines('same-floor', '>=20.19'),
        withEngines('either', '^20.19.0 || >=22.12.0'),
        withEngines('none', null),
        withEngines('node-22', '>=22'),
        withEngines('later-20', '>=20.20'),
        withEngines('majors', '^22.20 || ^24.12 || >=25'),
      ],
      '>=20.19',
    );
    expect(conflicts.map((conflict) => conflict.name)).toEqual(['node-22', 'later-20', 'majors']);
    expect(conflicts[0]).toEqual({ name: 'node-22', version: '1.0.0', engines: '>=22' });
  });
});

describe('the installed runtime dependencies', () => {
  it('package.json declares a Node range', () => {
    expect(manifest.engines.node).toBe('>=20.19');
  });

  it('every one admits the lowest Node version package.json engines allows', () => {
    const packages = productionPackages(root);
    expect(packages.filter((entry) => entry.engines !== null).length).toBeGreaterThan(10);
    expect(engineConflicts(packages, manifest.engines.node)).toEqual([]);
  });
});
