import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * A folder's SQL names its own tables only: another folder's part of a statement is a function or view
 * that folder publishes (docs/architecture.md, "Data: one owner per table"). A table's owner is the
 * folder of the `*.entity.ts` declaring it (`@Entity({ name })`); a file may name the tables of its
 * folder and of the folders above it, as it may import their repositories (`house/own-tables`).
 */
const sourceRoot = resolve(import.meta.dirname, '../src');

function entityFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entityFiles(path);
    return entry.name.endsWith('.entity.ts') ? [path] : [];
  });
}

/** Every entity's table with the folder that owns it, read from the disk once. */
export function tableOwners(root = sourceRoot) {
  const owners = new Map();
  for (const file of entityFiles(root)) {
    for (const [, table] of readFileSync(file, 'utf8').matchAll(
      /@(?:View)?Entity\(\{[^}]*?\bname:\s*'([a-z_][a-z0-9_]*)'/g,
    )) {
      owners.set(table, dirname(file));
    }
  }
  return owners;
}

/** Text that is SQL: a statement's keyword in capitals, as the house writes them. */
const sqlKeyword = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|JOIN|RETURNING)\b/;

/** A table right after a keyword that names one, in any case (`from "tenant"`, `JOIN tenant`). */
const afterKeyword = /\b(?:from|join|into|update|table|only)\s+"?([a-z_][a-z0-9_$]*)/gi;

/**
 * Each table of `owners` that `text` names: in SQL as the house writes it, as a whole word anywhere
 * (comma joins, subqueries, quoted); in any other text, right after a keyword that names a table.
 */
export function tablesNamed(text, owners) {
  // A named parameter (`:tenant`, database/named-parameters.ts) is no table.
  const unnamed = text.replace(/(?<!:):[A-Za-z_]\w*/g, ' ');
  const words = sqlKeyword.test(unnamed)
    ? new Set(unnamed.toLowerCase().match(/[a-z_][a-z0-9_$]*/g) ?? [])
    : new Set([...unnamed.matchAll(afterKeyword)].map((match) => match[1].toLowerCase()));
  return [...owners.keys()].filter((table) => words.has(table));
}

/** Whether a file of `folder` may name a table of `owner`: its own folder's or an ancestor's. */
function mayName(folder, owner) {
  return folder === owner || folder.startsWith(owner + sep);
}

let owners;

export const ownSql = {
  meta: {
    type: 'problem',
    docs: { description: "Forbid SQL that names another folder's table" },
    messages: {
      foreign:
        "src/{{owner}}/ owns the table {{table}}: call the function or view it publishes, don't " +
        'name its table (docs/architecture.md, "Data: one owner per table").',
    },
    schema: [],
  },
  create(context) {
    owners ??= tableOwners();
    const folder = dirname(context.filename);
    // Outside src/ and at its root (the composition root) no folder owns the file.
    if (folder === sourceRoot || relative(sourceRoot, folder).startsWith('..')) return {};
    const check = (node, text) => {
      for (const table of tablesNamed(text, owners)) {
        const owner = owners.get(table);
        if (mayName(folder, owner)) continue;
        context.report({
          node,
          messageId: 'foreign',
          data: { owner: relative(sourceRoot, owner), table },
        });
      }
    };
    return {
      Literal: (node) => {
        if (typeof node.value === 'string') check(node, node.value);
      },
      TemplateLiteral: (node) => check(node, node.quasis.map((quasi) => quasi.value.raw).join(' ')),
    };
  },
};
