// Builds dist/ (`npm run build`) only when what it is built from changed since
// the last build this script made, so `npm start` on a built tree starts at
// once instead of running a full `tsc`. "Changed" is by content: a SHA-256 over
// every file under src/ (path and bytes), the tsconfig files, the asset copier
// and package-lock.json (new type definitions), kept in dist/.build-stamp.
// A missing dist/cli/main.js or stamp always builds (a fresh clone).
//   node scripts/build-if-changed.mjs
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = join(root, 'dist', '.build-stamp');
const inputs = ['tsconfig.json', 'tsconfig.build.json', 'scripts/copy-assets.mjs', 'package-lock.json'];

function* filesUnder(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const path of [...filesUnder(join(root, 'src')), ...inputs.map((name) => join(root, name)).filter((path) => existsSync(path))]) {
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

const before = sourceHash();
const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
if (stamp === before && existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  process.stdout.write('build: dist/ is up to date with src/\n');
  process.exit(0);
}
process.stdout.write('build: src/ changed since the last build (or no build yet): building dist/ …\n');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const built = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// The hash taken before the build: a file edited during it makes the next run build again.
writeFileSync(stampFile, `${before}\n`);
