import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * `no-import-cycle`: no file under the linted root reaches itself through its
 * imports, type-only imports and re-exports included (ARCHITECTURE
 * "Boundaries"). `import-x/no-cycle` cannot count `import type`: it skips them
 * whatever its options, since they vanish at compile time; but a type-only
 * cycle still ties two modules into one, so this rule counts them.
 *
 * The import graph of the root is read from disk once per ESLint process
 * (relative specifiers only: `src/` has no path aliases), and its strongly
 * connected components are computed once; each import whose target lies in
 * its own file's component is reported with one cycle through it. An editor's
 * long-lived ESLint sees the files as they were when it started.
 */
const graphs = new Map();

function graphOf(root) {
  let graph = graphs.get(root);
  if (graph === undefined) {
    graph = buildGraph(root);
    graphs.set(root, graph);
  }
  return graph;
}

function buildGraph(root) {
  const files = [];
  const walk = (directory) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (full.endsWith('.ts') && !full.endsWith('.d.ts')) files.push(full);
    }
  };
  walk(root);
  const edges = new Map();
  for (const file of files) {
    const imported = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles;
    edges.set(file, new Set(imported.map((reference) => resolve(file, reference.fileName)).filter((target) => target !== undefined)));
  }
  return { edges, component: components(files, edges) };
}

/** The `.ts` file a relative specifier names (`./x.js` → `./x.ts`, a folder → its `index.ts`); undefined for a package. */
function resolve(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Tarjan's strongly connected components: file → component id, for files in a component of two or more. */
function components(files, edges) {
  const component = new Map();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  let counter = 0;
  let next = 0;
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1) {
      for (const each of members) component.set(each, next);
      next += 1;
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return component;
}

/** A shortest path from `start` back to `goal` inside their component (breadth first). */
function cycleThrough(graph, start, goal) {
  const id = graph.component.get(goal);
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === goal) break;
    for (const target of graph.edges.get(file) ?? []) {
      if (graph.component.get(target) !== id || previous.has(target)) continue;
      previous.set(target, file);
      queue.push(target);
    }
  }
  const route = [];
  for (let file = goal; file !== undefined; file = previous.get(file)) route.unshift(file);
  return route;
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports and re-exports included' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, required: ['root'], additionalProperties: false }],
    messages: { cycle: 'Import cycle (type-only imports count, ARCHITECTURE "Boundaries"): {{route}}' },
  },
  create(context) {
    const root = path.resolve(context.options[0].root);
    const file = context.physicalFilename;
    if (!file.startsWith(`${root}${path.sep}`)) return {};
    const graph = graphOf(root);
    const id = graph.component.get(file);
    if (id === undefined) return {};
    const check = (node) => {
      if (node.source?.type !== 'Literal' || typeof node.source.value !== 'string') return;
      const target = resolve(file, node.source.value);
      if (target === undefined || graph.component.get(target) !== id) return;
      const route = [file, ...cycleThrough(graph, target, file)].map((each) => path.relative(root, each)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { route } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
