#!/usr/bin/env node
/* global console, process, URL */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// Completes package-lock.json with the per-platform optional packages that the
// registry reachable here does not serve (docs/decisions/0009). `npm install`
// leaves them out of the lock, and `npm ci` then refuses the lock as out of
// sync. Each one is listed as its parent declares it (name, version), marked
// optional with the os/cpu/libc its name encodes, so npm ci on this platform
// skips it without fetching, and a machine of that platform fetches it.
// Run after every `npm install`: `node scripts/complete-lock.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const CPU = { amd64: 'x64', x64: 'x64', arm64: 'arm64', arm: 'arm', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x', wasm32: 'wasm32' };
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix', 'netbsd', 'openharmony'];

/** os, cpu and libc of a platform package, from the name's tail (`anvil-darwin-arm64`, `resolver-binding-linux-arm-musleabihf`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((part) => OS.includes(part));
  if (osIndex === -1) {
    const wasm = parts.find((part) => part === 'wasm32');
    return wasm === undefined ? undefined : { cpu: ['wasm32'] };
  }
  const cpu = CPU[parts[osIndex + 1]];
  if (cpu === undefined) return undefined;
  const abi = parts[osIndex + 2];
  const libc = abi === undefined ? undefined : abi.startsWith('musl') ? ['musl'] : abi.startsWith('gnu') ? ['glibc'] : undefined;
  return { os: [parts[osIndex]], cpu: [cpu], ...(libc === undefined ? {} : { libc }) };
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const location = `node_modules/${name}`;
    if (packages[location] !== undefined || packages[`${path}/${location}`] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) continue;
    packages[location] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added += 1;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added === 0 ? 'package-lock.json: complete' : `package-lock.json: listed ${added} platform package(s) the registry did not serve`);
process.exitCode = 0;
