import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { errorCatalog } from '../src/common/problem/error-codes.js';
import { settingsCatalogue } from '../src/config/settings.js';

/** The documentation says what the code does: its tables are checked against the code's catalogues. */

const root = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The rows of the first Markdown table under `heading` (or of the file's first table), as cells. */
function tableRows(markdown: string, firstColumn: string): string[][] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => new RegExp(`^\\|\\s*${firstColumn}\\s*\\|`).test(line));
  expect(header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

describe('the documentation', () => {
  it('lists every error code of the catalogue, with its status and title, and no other', () => {
    const rows = tableRows(read('docs/errors.md'), 'code');
    const documented = rows.map(([code, status, title]) => [
      code?.replaceAll('`', ''),
      status,
      title,
    ]);
    const catalogued = Object.entries(errorCatalog).map(([code, entry]) => [
      code,
      String(entry.status),
      entry.title,
    ]);
    expect(documented).toEqual(catalogued);
  });

  it('lists every setting with the default the Settings class documents, and no other', () => {
    const rows = tableRows(read('docs/operations.md'), 'Variable');
    const documented = rows.map(([name, defaultValue]) => [
      name?.replaceAll('`', ''),
      defaultValue,
    ]);
    const declared = [...settingsCatalogue()].map(([name, info]) => [name, info.default]);
    expect(documented).toEqual(declared);
  });

  it('names every setting in .env.example', () => {
    const example = read('.env.example');
    const missing = [...settingsCatalogue().keys()].filter(
      (name) => !new RegExp(`^#? ?${name}=`, 'm').test(example),
    );
    expect(missing).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((file) => `docs/${file}`)];
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(root, page) : resolve(join(root, dirname(page)), path);
        if (!existsSync(file)) {
          broken.push(`${page}: ${target}`);
          continue;
        }
        if (anchor === undefined || !file.endsWith('.md')) continue;
        const headings = [...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((match) =>
          anchorOf(match[1]),
        );
        if (!headings.includes(anchor)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README a front door', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});
