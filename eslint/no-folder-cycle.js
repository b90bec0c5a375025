import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * A folder of src/ may not import a sibling folder that already depends on it, directly or through
 * others, at any depth (src/credentials/status/ and src/credentials/sd-jwt/ as much as src/did/ and
 * src/tenants/): import-x/no-cycle sees cycles between files, this one between folders
 * (docs/architecture.md). Type-only imports are erased at run time and do not count.
 */
const sourceRoot = resolve(import.meta.dirname, '../src');

/**
 * The two sibling folders an import crosses, named from src/ (`credentials/status`), or undefined when
 * it stays in one folder, goes between a folder and its own parent, or leaves src/ (the composition
 * root, src/*.ts, belongs to no folder).
 */
export function siblingFolders(fromFile, toFile) {
  const from = relative(sourceRoot, dirname(fromFile)).split(sep);
  const to = relative(sourceRoot, dirname(toFile)).split(sep);
  if (from[0] === '' || from[0] === '..' || to[0] === '' || to[0] === '..') return undefined;
  let shared = 0;
  while (shared < from.length && shared < to.length && from[shared] === to[shared]) shared += 1;
  if (shared === from.length || shared === to.length) return undefined;
  return {
    from: from.slice(0, shared + 1).join('/'),
    to: to.slice(0, shared + 1).join('/'),
  };
}

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Relative specifiers of a file's value imports and re-exports. */
function valueImports(text) {
  const pattern = /^(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'/gms;
  return [...text.matchAll(pattern)]
    .filter(([, typeOnly, clause]) => {
      if (typeOnly !== undefined) return false;
      const named = /^\{([^}]*)\}$/s.exec(clause.trim());
      if (named === null) return true;
      const names = named[1]
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      return !names.every((name) => name.startsWith('type '));
    })
    .map(([, , , specifier]) => specifier);
}

let cachedGraph;
/** folder -> the sibling folders its files import (values only), read from the disk once per lint run. */
function folderGraph() {
  if (cachedGraph !== undefined) return cachedGraph;
  cachedGraph = new Map();
  for (const file of sourceFiles(sourceRoot)) {
    for (const specifier of valueImports(readFileSync(file, 'utf8'))) {
      const edge = siblingFolders(file, resolve(dirname(file), specifier));
      if (edge === undefined) continue;
      if (!cachedGraph.has(edge.from)) cachedGraph.set(edge.from, new Set());
      cachedGraph.get(edge.from).add(edge.to);
    }
  }
  return cachedGraph;
}

/** The folders from `start` to `goal`, or undefined when `goal` is not reachable. */
function pathBetween(graph, start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const folder = queue.shift();
    if (folder === goal) {
      const path = [];
      for (let at = goal; at !== undefined; at = previous.get(at)) path.unshift(at);
      return path;
    }
    for (const next of graph.get(folder) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, folder);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export const noFolderCycle = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Forbid a value import that closes a cycle between sibling folders of src/',
    },
    messages: {
      cycle:
        'src/{{from}}/ imports src/{{to}}/, which already depends on src/{{from}}/ ({{path}}): ' +
        'move what both need into a leaf folder, or invert the dependency with a port.',
    },
    schema: [],
  },
  create(context) {
    const check = (node) => {
      if (node.source === null || node.source === undefined) return;
      if (node.importKind === 'type' || node.exportKind === 'type') return;
      const specifiers = node.specifiers ?? [];
      if (
        specifiers.length > 0 &&
        specifiers.every(
          (specifier) => specifier.importKind === 'type' || specifier.exportKind === 'type',
        )
      )
        return;
      const specifier = node.source.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const edge = siblingFolders(context.filename, resolve(dirname(context.filename), specifier));
      if (edge === undefined) return;
      const path = pathBetween(folderGraph(), edge.to, edge.from);
      if (path !== undefined) {
        context.report({
          node,
          messageId: 'cycle',
          data: { from: edge.from, to: edge.to, path: path.join(' -> ') },
        });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
