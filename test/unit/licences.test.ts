import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LICENCES_FILE,
  REVIEWED_LICENCES,
  classifyLicence,
  licenceOf,
  licenceProblems,
  licencesDocument,
  listedName,
  productionPackages,
  type InstalledPackage,
} from '../../scripts/production-packages.mjs';

// Issue 20 item 1: Ivory is Apache-2.0, so no runtime dependency may carry a licence whose
// conditions reach Ivory's code (copyleft), and none may be unknown unless reviewed; and
// docs/licences.md (`npm run licences`) lists them as installed now.

const root = path.resolve(import.meta.dirname, '../..');

function installed(name: string, licence: string | null, extra: Partial<InstalledPackage> = {}): InstalledPackage {
  return { name, version: '1.0.0', licence, engines: null, platform: false, ...extra };
}

describe('classifyLicence', () => {
  it.each([
    ['MIT', 'permissive'],
    ['Apache-2.0', 'permissive'],
    ['(MIT OR Apache-2.0)', 'permissive'],
    ['BSD-3-Clause AND ISC', 'permissive'],
    ['Apache-2.0 WITH LLVM-exception', 'permissive'],
    ['MPL-2.0', 'weak-copyleft'],
    ['MIT AND MPL-2.0', 'weak-copyleft'],
    ['GPL-3.0-only', 'copyleft'],
    ['GPL-2.0+', 'copyleft'],
    ['GPL-2.0-only WITH Classpath-exception-2.0', 'copyleft'],
    ['AGPL-3.0-or-later', 'copyleft'],
    ['LGPL-3.0-or-later', 'copyleft'],
    ['SSPL-1.0', 'copyleft'],
    ['EUPL-1.2', 'copyleft'],
    ['OSL-3.0', 'copyleft'],
    ['CC-BY-SA-4.0', 'copyleft'],
    ['MIT AND GPL-3.0-only', 'copyleft'],
    // A choice: the permissive branch may be taken.
    ['(GPL-3.0-only OR MIT)', 'permissive'],
    ['MIT OR GPL-2.0-only AND LGPL-2.1-only', 'permissive'],
    ['(MIT OR GPL-2.0-only) AND LGPL-2.1-only', 'copyleft'],
    ['UNLICENSED', 'unknown'],
    ['SEE LICENSE IN LICENSE.md', 'unknown'],
    ['WTFPL-but-not-really', 'unknown'],
    ['(MIT', 'unknown'],
    ['MIT OR', 'unknown'],
    ['', 'unknown'],
  ])('%s → %s', (expression, expected) => {
    expect(classifyLicence(expression)).toBe(expected);
  });

  it('a missing licence is unknown', () => {
    expect(classifyLicence(null)).toBe('unknown');
  });
});

describe('licenceOf: the forms package.json files use', () => {
  it('reads the SPDX string, the old {type} object and the old list (any of them)', () => {
    expect(licenceOf({ license: ' MIT ' })).toBe('MIT');
    expect(licenceOf({ license: { type: 'BSD-3-Clause', url: 'https://example.org' } })).toBe('BSD-3-Clause');
    expect(licenceOf({ licenses: [{ type: 'MIT' }] })).toBe('MIT');
    expect(licenceOf({ licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] })).toBe('(MIT OR Apache-2.0)');
    expect(licenceOf({})).toBeNull();
    expect(licenceOf({ license: '' })).toBeNull();
  });
});

describe('licenceProblems', () => {
  it('copyleft and unknown licences fail; permissive and MPL pass', () => {
    const problems = licenceProblems([
      installed('fine', 'MIT'),
      installed('weak', 'MPL-2.0'),
      installed('strong', 'GPL-3.0-only'),
      installed('library', 'LGPL-2.1-only'),
      installed('nothing', null),
      installed('secret', 'UNLICENSED'),
    ]);
    expect(problems.map((problem) => [problem.name, problem.class])).toEqual([
      ['library', 'copyleft'],
      ['nothing', 'unknown'],
      ['secret', 'unknown'],
      ['strong', 'copyleft'],
    ]);
  });

  it('a reviewed package passes with the licence reviewed only; every review gives its reason', () => {
    const libvips = (licence: string) => installed('@img/sharp-libvips-linux-x64', licence, { platform: true });
    expect(licenceProblems([libvips('LGPL-3.0-or-later')])).toEqual([]);
    expect(licenceProblems([libvips('GPL-3.0-only')])).toHaveLength(1);
    expect(licenceProblems([libvips('LGPL-3.0-or-later')], [])).toHaveLength(1);
    for (const review of REVIEWED_LICENCES) expect(review.reason.length).toBeGreaterThan(40);
  });

  it('platform builds are listed by one name on every machine', () => {
    expect(listedName(installed('@img/sharp-libvips-linux-x64', 'x', { platform: true }))).toBe('@img/sharp-libvips-<platform>');
    expect(listedName(installed('@img/sharp-libvips-darwin-arm64', 'x', { platform: true }))).toBe('@img/sharp-libvips-<platform>');
    expect(listedName(installed('@img/sharp-linuxmusl-x64', 'x', { platform: true }))).toBe('@img/sharp-<platform>');
    // Not a platform build: the name is kept, even with a platform-like word in it.
    expect(listedName(installed('arm-detector', 'MIT'))).toBe('arm-detector');
  });
});

describe('productionPackages: the tree walk', () => {
  const fixture = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-licences-'));
  afterAll(() => fs.rmSync(fixture, { recursive: true, force: true }));

  function write(directory: string, manifest: Record<string, unknown>) {
    fs.mkdirSync(path.join(fixture, directory), { recursive: true });
    fs.writeFileSync(path.join(fixture, directory, 'package.json'), JSON.stringify(manifest));
  }

  it('follows dependencies, installed optional ones and required peers, as Node resolves them; never devDependencies', () => {
    write('.', {
      name: 'app',
      dependencies: { a: '^1', '@scope/b': '^1' },
      devDependencies: { tool: '^1' },
      optionalDependencies: { 'absent-build': '^1' },
    });
    write('node_modules/a', { name: 'a', version: '1.0.0', license: 'MIT', dependencies: { c: '^2' }, peerDependencies: { peer: '*', maybe: '*' }, peerDependenciesMeta: { maybe: { optional: true } } });
    // a's own c@2 shadows the hoisted c@1 for a; @scope/b gets the hoisted one.
    write('node_modules/a/node_modules/c', { name: 'c', version: '2.0.0', license: 'ISC' });
    write('node_modules/c', { name: 'c', version: '1.0.0', licenses: [{ type: 'MIT' }] });
    write('node_modules/@scope/b', { name: '@scope/b', version: '1.0.0', license: 'Apache-2.0', dependencies: { c: '^1' }, optionalDependencies: { 'b-linux-x64': '1.0.0', 'b-darwin-arm64': '1.0.0' } });
    write('node_modules/b-linux-x64', { name: 'b-linux-x64', version: '1.0.0', license: 'MIT', os: ['linux'], cpu: ['x64'] });
    write('node_modules/peer', { name: 'peer', version: '3.0.0', license: 'BSD-2-Clause', engines: { node: '>=18' } });
    write('node_modules/maybe', { name: 'maybe', version: '1.0.0', license: 'GPL-3.0-only' });
    write('node_modules/tool', { name: 'tool', version: '1.0.0', license: 'GPL-3.0-only' });

    expect(productionPackages(fixture)).toEqual([
      { name: '@scope/b', version: '1.0.0', licence: 'Apache-2.0', engines: null, platform: false },
      { name: 'a', version: '1.0.0', licence: 'MIT', engines: null, platform: false },
      { name: 'b-linux-x64', version: '1.0.0', licence: 'MIT', engines: null, platform: true },
      { name: 'c', version: '1.0.0', licence: 'MIT', engines: null, platform: false },
      { name: 'c', version: '2.0.0', licence: 'ISC', engines: null, platform: false },
      { name: 'peer', version: '3.0.0', licence: 'BSD-2-Clause', engines: '>=18', platform: false },
    ]);
  });

  it('a required dependency that is not installed is an error, not a shorter list', () => {
    write('node_modules/a/node_modules/c', { name: 'c', version: '2.0.0', license: 'ISC', dependencies: { missing: '^1' } });
    expect(() => productionPackages(fixture)).toThrow(/needs missing, which is not installed/);
  });
});

describe('the installed runtime dependencies (issue 20)', () => {
  const packages = productionPackages(root);

  it('the walk finds the tree: every direct dependency, and more below them', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const names = new Set(packages.map((entry) => entry.name));
    for (const name of Object.keys(manifest.dependencies)) expect(names, name).toContain(name);
    expect(packages.length).toBeGreaterThan(Object.keys(manifest.dependencies).length * 3);
    // Test tooling is not shipped.
    expect(names).not.toContain('vitest');
    expect(names).not.toContain('eslint');
  });

  it('none is copyleft or of unknown licence unless reviewed in REVIEWED_LICENCES', () => {
    expect(licenceProblems(packages)).toEqual([]);
  });

  it(`${LICENCES_FILE} is what \`npm run licences\` writes now`, () => {
    const committed = fs.readFileSync(path.join(root, LICENCES_FILE), 'utf8');
    expect(committed).toBe(licencesDocument(packages));
  });
});
