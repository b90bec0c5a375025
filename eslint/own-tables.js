import { basename, dirname, relative, resolve, sep } from 'node:path';

/**
 * Inside a feature, at any depth, a folder's tables are its own: a `*.repository.ts` or `*.entity.ts`
 * is imported only by files of its folder and that folder's descendants (src/oid4vci/wallet/ asks the
 * offers service, never `../offers/offer.repository.js`; docs/architecture.md, "Data: one owner per
 * table"). Type-only imports count too: a row's shape is the owner's to publish. Between top-level
 * folders `import-x/no-restricted-paths` says the same; this rule covers what stays in one of them.
 */
const sourceRoot = resolve(import.meta.dirname, '../src');
const tableFile = /\.(repository|entity)\.(js|ts)$/;

/**
 * Whether `fromFile` may import the table file `toFile`: a file of its folder or below, or the feature's
 * `*.module.ts` above it, which names the classes to register them (`TypeOrmModule.forFeature` for the
 * entities, `providers` for the repositories): Nest needs the classes themselves there.
 */
export function mayImportTable(fromFile, toFile) {
  const owner = dirname(toFile);
  const importer = dirname(fromFile);
  if (importer === owner || importer.startsWith(owner + sep)) return true;
  return basename(fromFile).endsWith('.module.ts') && owner.startsWith(importer + sep);
}

/** The top-level folder of src/ a file is in, or undefined outside src/ or at its root. */
function topFolder(file) {
  const parts = relative(sourceRoot, file).split(sep);
  return parts.length < 2 || parts[0] === '..' ? undefined : parts[0];
}

export const ownTables = {
  meta: {
    type: 'problem',
    docs: {
      description:
        "Forbid importing another folder's repository or entity inside a feature, at any depth",
    },
    messages: {
      foreign:
        'src/{{owner}}/ owns its tables: ask its service, not {{file}} (only its folder, its ' +
        "descendants and the feature's module name it).",
    },
    schema: [
      {
        type: 'object',
        properties: {
          // Imports not yet moved behind their owner's service: `from -> to`, paths from the root.
          pending: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const pending = new Set(context.options[0]?.pending ?? []);
    const root = resolve(sourceRoot, '..');
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.') || !tableFile.test(specifier))
        return;
      const target = resolve(dirname(context.filename), specifier).replace(/\.js$/, '.ts');
      const top = topFolder(target);
      // Between top-level folders (and from the composition root) import-x/no-restricted-paths decides.
      if (top === undefined || top !== topFolder(context.filename)) return;
      if (mayImportTable(context.filename, target)) return;
      if (pending.has(`${relative(root, context.filename)} -> ${relative(root, target)}`)) return;
      context.report({
        node,
        messageId: 'foreign',
        data: { owner: relative(sourceRoot, dirname(target)), file: basename(target) },
      });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
