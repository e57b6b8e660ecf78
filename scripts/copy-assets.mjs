// Copies the non-TypeScript files the program reads at run time (catalogue JSON,
// icons, page templates) from src/ to the same relative places under dist/,
// because tsc emits only JavaScript. Run after `tsc` from any directory:
//   node scripts/copy-assets.mjs
import { chmodSync, copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { stdout } from 'node:process';
import { URL, fileURLToPath } from 'node:url';

// `.js`: the dashboard's browser script (src/dashboard/assets/), plain JavaScript that tsc does not compile.
const ASSET_EXTENSIONS = new Set(['.json', '.svg', '.html', '.css', '.txt', '.js']);
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const sourceRoot = join(projectRoot, 'src');
const outputRoot = join(projectRoot, 'dist');

function* assetsUnder(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* assetsUnder(path);
    else if (entry.isFile() && ASSET_EXTENSIONS.has(extname(entry.name).toLowerCase())) yield path;
  }
}

let copied = 0;
for (const source of assetsUnder(sourceRoot)) {
  const target = join(outputRoot, relative(sourceRoot, source));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
  copied += 1;
}
stdout.write(`copy-assets: ${copied} file(s) from src/ to dist/\n`);

// The package's `bin` (`npx ivory` in this folder runs it directly): tsc writes it
// without the execute bit, and npm sets that bit only when it links an installed package.
chmodSync(join(outputRoot, 'cli', 'main.js'), 0o755);
