import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Decision 0009: `npm ci` refuses a lock file that leaves out an optional platform package its
// parent declares (the registry here serves only some platforms). scripts/complete-lock.mjs lists
// them; this fails when an `npm install` changed the lock and the script was not run after it.

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

const root = path.resolve(import.meta.dirname, '../..');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** Where Node would find `name` from the package at `location`: its own node_modules, then each ancestor's. */
function resolves(location: string, name: string): boolean {
  let base = location;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return true;
    if (base === '') return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

describe('package-lock.json (decision 0009)', () => {
  it('lists every optional dependency of every locked package, installable here or not', () => {
    const missing: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(location, name)) missing.push(`${location || '(root)'} → ${name}`);
      }
    }
    expect(missing, 'run `node scripts/complete-lock.mjs`').toEqual([]);
  });

  it('lists litesvm 1.5.0 for every platform it is built for, not only linux-x64-gnu', () => {
    for (const platform of ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu', 'linux-x64-musl']) {
      expect(lock.packages[`node_modules/litesvm-${platform}`]).toMatchObject({ version: '1.5.0', optional: true });
    }
  });
});
