// The production dependency tree as installed in node_modules, its licences and
// its Node engines: shared by `npm run licences` (scripts/licences.mjs), which
// writes docs/licences.md, and by the tests that keep that file and the
// dependencies' licences and engines honest (test/unit/licences.test.ts,
// test/unit/engines.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

export const LICENCES_FILE = 'docs/licences.md';

/**
 * Runtime packages whose licence is not plainly permissive but was reviewed and
 * accepted, by the name the tree gives them (platform builds with `<platform>`)
 * and the exact licence text reviewed: a different licence needs a new review.
 */
export const REVIEWED_LICENCES = [
  {
    name: '@img/sharp-libvips-<platform>',
    licence: 'LGPL-3.0-or-later',
    reason:
      'libvips, the image library under sharp (ARCHITECTURE "Chosen dependencies": avatars and logos). ' +
      'sharp loads it as a shared library from its own npm package, unmodified, which anyone can replace ' +
      'with another build (LGPL-3.0 section 4(d)(1)); the LGPL does not extend to the code that uses it. ' +
      'Whoever redistributes node_modules (a container image) keeps that package with its licence files.',
  },
];

/*
 * Licence classes. Permissive: a reviewed list of SPDX identifiers, nothing
 * else. Copyleft (fails): the GPL family (GPL, AGPL, LGPL), SSPL, EUPL, OSL and
 * CC-BY-SA, with any version and exception — their conditions can reach the
 * program that uses the package. MPL is weak copyleft and accepted: its
 * conditions apply file by file to the MPL files themselves (MPL-2.0 3.3 allows
 * them in a larger work under another licence); we ship such packages
 * unmodified and never patch node_modules. Anything else — a missing licence,
 * `UNLICENSED`, `SEE LICENSE IN …`, an identifier not reviewed here — is
 * unknown and fails until someone reads it and lists it.
 */
const PERMISSIVE = new Set([
  '0BSD',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'CC-BY-3.0',
  'CC-BY-4.0',
  'CC0-1.0',
  'ISC',
  'MIT',
  'MIT-0',
  'Python-2.0',
  'Unlicense',
  'Zlib',
]);
const WEAK_COPYLEFT = /^MPL-/;
const COPYLEFT = /^(A|L)?GPL-|^SSPL-|^EUPL-|^OSL-|^CC-BY-SA-/;

/** How far a licence is from permissive, in order: an OR takes the best branch, an AND the worst. */
const CLASSES = ['permissive', 'weak-copyleft', 'unknown', 'copyleft'];

/** Operating systems and CPUs as they appear in the names of platform builds (`sharp-libvips-linux-x64`). */
const PLATFORM_WORDS = /^(darwin|linux|linuxmusl|win32|freebsd|openbsd|netbsd|sunos|aix|android|openharmony|webcontainers|x64|arm64|arm|ia32|wasm32|ppc64|riscv64|s390x|loong64)$/;

/**
 * The packages reachable from the root package.json's `dependencies`, as Node
 * resolves them from node_modules, each once per directory: `dependencies`,
 * installed `optionalDependencies` (a platform build for another machine is
 * absent, not an error) and required `peerDependencies` of every package.
 * Throws when a required dependency is not installed (run `npm ci`).
 */
export function productionPackages(root) {
  const found = new Map();
  const pending = [{ directory: root, manifest: readManifest(root), isRoot: true }];
  while (pending.length > 0) {
    const { directory, manifest, isRoot } = pending.pop();
    const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta?.optional).map(([name]) => name);
    const wanted = [
      ...Object.keys(manifest.dependencies ?? {}).map((name) => ({ name, optional: false })),
      ...Object.keys(manifest.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
      ...(isRoot ? [] : Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers.includes(name)).map((name) => ({ name, optional: false }))),
    ];
    for (const { name, optional } of wanted) {
      const location = resolvePackage(root, directory, name);
      if (location === undefined) {
        if (optional) continue;
        throw new Error(`${manifest.name ?? directory} needs ${name}, which is not installed: run npm ci`);
      }
      if (found.has(location)) continue;
      const dependency = readManifest(location);
      found.set(location, {
        name: dependency.name ?? name,
        version: dependency.version ?? '',
        licence: licenceOf(dependency),
        engines: typeof dependency.engines?.node === 'string' ? dependency.engines.node : null,
        platform: dependency.os !== undefined || dependency.cpu !== undefined,
      });
      pending.push({ directory: location, manifest: dependency, isRoot: false });
    }
  }
  return [...found.values()].sort(byNameAndVersion);
}

function readManifest(directory) {
  return JSON.parse(fs.readFileSync(path.join(directory, 'package.json'), 'utf8'));
}

/** Node's lookup: `node_modules/<name>` in the package's directory, then in each directory above it, up to the root. */
function resolvePackage(root, from, name) {
  let directory = from;
  for (;;) {
    if (path.basename(directory) !== 'node_modules') {
      const candidate = path.join(directory, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    }
    if (directory === root) return undefined;
    const parent = path.dirname(directory);
    if (parent === directory || !parent.startsWith(root)) return undefined;
    directory = parent;
  }
}

/** The licence a manifest declares, as one SPDX-like expression; null when it declares none. */
export function licenceOf(manifest) {
  const { license, licenses } = manifest;
  if (typeof license === 'string' && license.trim() !== '') return license.trim();
  // Old forms: {type, url}, or a list of them meaning "any of these".
  if (license !== null && typeof license === 'object' && typeof license.type === 'string') return license.type;
  if (Array.isArray(licenses)) {
    const types = licenses.map((item) => (typeof item === 'string' ? item : item?.type)).filter((type) => typeof type === 'string');
    if (types.length === 1) return types[0];
    if (types.length > 1) return `(${types.join(' OR ')})`;
  }
  return null;
}

/** `permissive`, `weak-copyleft`, `copyleft` or `unknown` for an SPDX expression (AND, OR, WITH, parentheses). */
export function classifyLicence(expression) {
  if (expression === null) return 'unknown';
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let position = 0;
  const peek = () => tokens[position]?.toUpperCase();
  const either = () => {
    let result = both();
    while (peek() === 'OR') {
      position += 1;
      result = better(result, both());
    }
    return result;
  };
  const both = () => {
    let result = single();
    while (peek() === 'AND') {
      position += 1;
      result = worse(result, single());
    }
    return result;
  };
  const single = () => {
    const token = tokens[position];
    position += 1;
    if (token === '(') {
      const inner = either();
      if (tokens[position] !== ')') throw new SyntaxError('unbalanced parentheses');
      position += 1;
      return inner;
    }
    if (token === undefined || token === ')' || ['AND', 'OR', 'WITH'].includes(token.toUpperCase())) throw new SyntaxError(`unexpected ${token}`);
    // An exception (`WITH LLVM-exception`) grants more, never less: the identifier decides.
    if (peek() === 'WITH') position += 2;
    return classifyIdentifier(token.replace(/\+$/, ''));
  };
  try {
    const result = either();
    return position === tokens.length ? result : 'unknown';
  } catch {
    return 'unknown';
  }
}

function classifyIdentifier(identifier) {
  if (PERMISSIVE.has(identifier)) return 'permissive';
  if (WEAK_COPYLEFT.test(identifier)) return 'weak-copyleft';
  if (COPYLEFT.test(identifier)) return 'copyleft';
  return 'unknown';
}

function better(a, b) {
  return CLASSES.indexOf(a) <= CLASSES.indexOf(b) ? a : b;
}

function worse(a, b) {
  return CLASSES.indexOf(a) >= CLASSES.indexOf(b) ? a : b;
}

/**
 * The name a package is listed under: a platform build (a manifest with `os`
 * or `cpu`) has its platform words replaced by `<platform>`, so that the list
 * is the same on every machine — each installs only its own build.
 */
export function listedName(entry) {
  if (!entry.platform) return entry.name;
  const slash = entry.name.lastIndexOf('/');
  const words = entry.name.slice(slash + 1).split('-');
  const first = words.findIndex((word, index) => index > 0 && PLATFORM_WORDS.test(word));
  if (first === -1) return entry.name;
  return `${entry.name.slice(0, slash + 1)}${[...words.slice(0, first), '<platform>'].join('-')}`;
}

/** The rows of docs/licences.md: one per listed name, version and licence. */
export function licenceRows(packages) {
  const rows = new Map();
  for (const entry of packages) {
    const row = { name: listedName(entry), version: entry.version, licence: entry.licence };
    rows.set(`${row.name}@${row.version}@${row.licence}`, row);
  }
  return [...rows.values()].sort(byNameAndVersion);
}

/** Packages whose licence is copyleft or unknown and not in REVIEWED_LICENCES, with the class that failed. */
export function licenceProblems(packages, reviewed = REVIEWED_LICENCES) {
  return licenceRows(packages)
    .map((row) => ({ ...row, class: classifyLicence(row.licence) }))
    .filter((row) => row.class === 'copyleft' || row.class === 'unknown')
    .filter((row) => !reviewed.some((item) => item.name === row.name && item.licence === row.licence));
}

/**
 * Packages whose `engines.node` does not admit the lowest Node version that
 * `nodeRange` (the root package.json's `engines.node`) allows: installing them
 * on that Node prints EBADENGINE, and they may not run there.
 */
export function engineConflicts(packages, nodeRange) {
  const minimum = semver.minVersion(nodeRange);
  if (minimum === null) throw new Error(`engines.node ${nodeRange} admits no version`);
  return packages
    .filter((entry) => entry.engines !== null && !semver.satisfies(minimum, entry.engines, { includePrerelease: true }))
    .map((entry) => ({ name: entry.name, version: entry.version, engines: entry.engines }));
}

/** The text of docs/licences.md. */
export function licencesDocument(packages, reviewed = REVIEWED_LICENCES) {
  const cell = (text) => text.replace(/\|/g, '\\|');
  const rows = licenceRows(packages);
  return [
    '# Licences of the runtime dependencies',
    '',
    '<!-- Generated by `npm run licences` (scripts/licences.mjs). Do not edit: test/unit/licences.test.ts fails when it differs from what the script writes now. -->',
    '',
    'Every package reachable from `dependencies` in package.json, as installed in node_modules, with the',
    'licence its own package.json declares. Ivory is Apache-2.0 (LICENSE). A copyleft licence (GPL, AGPL,',
    'LGPL, SSPL, EUPL, OSL, CC-BY-SA) or an unknown one fails the test unless reviewed below; MPL (weak,',
    'file-level copyleft) is accepted for packages shipped unmodified. `<platform>` stands for the build of',
    'a package for one operating system and CPU: npm installs the one for the machine.',
    '',
    '| Package | Version | Licence |',
    '| --- | --- | --- |',
    ...rows.map((row) => `| \`${cell(row.name)}\` | ${cell(row.version)} | ${cell(row.licence ?? '(none declared)')} |`),
    '',
    `${rows.length} package versions.`,
    '',
    '## Reviewed exceptions',
    '',
    ...reviewed.map((item) => `- \`${item.name}\` (${item.licence}): ${item.reason}`),
    '',
  ].join('\n');
}

function byNameAndVersion(a, b) {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.version < b.version ? -1 : a.version > b.version ? 1 : 0;
}
