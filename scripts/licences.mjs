#!/usr/bin/env node
/* global console, process */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `npm run licences`: writes docs/licences.md, the licences of every runtime
// dependency as installed in node_modules (run after `npm ci`), and fails when
// one is copyleft or unknown and not reviewed (scripts/production-packages.mjs).
// test/unit/licences.test.ts fails when the committed file differs from what
// this writes now.
import fs from 'node:fs';
import path from 'node:path';
import { LICENCES_FILE, licenceProblems, licenceRows, licencesDocument, productionPackages } from './production-packages.mjs';

const root = path.resolve(import.meta.dirname, '..');
const packages = productionPackages(root);
fs.writeFileSync(path.join(root, LICENCES_FILE), licencesDocument(packages));
console.log(`wrote ${LICENCES_FILE}: ${licenceRows(packages).length} package versions (${packages.length} installed runtime packages)`);
const problems = licenceProblems(packages);
for (const problem of problems) {
  console.error(`${problem.name}@${problem.version}: licence ${problem.licence ?? '(none declared)'} is ${problem.class}; review it and list it in REVIEWED_LICENCES, or drop the dependency`);
}
process.exitCode = problems.length === 0 ? 0 : 1;
