import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * `npm test` runs the e2e suites (`test/*.e2e-spec.ts`) in this many groups, one Jest file each
 * (`test/groups/e2e-NN.e2e-group.ts`), so that Jest loads the service's module tree once per group
 * rather than once per suite (docs/architecture.md, Tests). A suite is still a file of its own, run
 * alone with `npm run test:file -- test/<name>.e2e-spec.ts`.
 */
export const groupCount = 15;

/**
 * `npm run test:external` runs the suites whose outcome the database server or Redis decides
 * (`database-suites.json`, jest.external.config.js) in this many groups (`external-NN.external-group.ts`).
 */
export const externalGroupCount = 5;

const here = new URL('.', import.meta.url);
const tests = new URL('..', import.meta.url);

/**
 * The suites of the group file at `groupFile` (its `import.meta.url`; `NN` in its name is the group,
 * from 01), as import specifiers: every suite of `npm test` or, for an external group, of
 * `database-suites.json`, one in every so many by name.
 */
export function suitesOf(groupFile: string): string[] {
  const [, kind, number] = /\/(e2e|external)-(\d+)\.\1-group\.ts$/.exec(groupFile) ?? [];
  if (kind === undefined) throw new Error(`${groupFile} is not a group file`);
  const names = kind === 'e2e' ? suiteNames() : databaseSuiteNames();
  const count = kind === 'e2e' ? groupCount : externalGroupCount;
  const files = readdirSync(here).filter((name) => name.endsWith(`.${kind}-group.ts`)).length;
  // A group file more or fewer would run a suite twice or never.
  if (files !== count) throw new Error(`test/groups has ${files} ${kind} groups, not ${count}`);
  return names
    .sort()
    .filter((_, index) => index % count === Number(number) - 1)
    .map((name) => `../${name}.e2e-spec.js`);
}

function suiteNames(): string[] {
  const found = readdirSync(tests, { recursive: true, encoding: 'utf8' }).filter((path) =>
    path.endsWith('.e2e-spec.ts'),
  );
  // The groups read test/ only: a suite in a folder below would run alone but never in npm test.
  const nested = found.filter((path) => path.includes('/'));
  if (nested.length > 0) throw new Error(`e2e suites belong in test/: ${nested.join(', ')}`);
  return found.map((name) => name.slice(0, -'.e2e-spec.ts'.length));
}

function databaseSuiteNames(): string[] {
  const names = JSON.parse(readFileSync(new URL('database-suites.json', here), 'utf8')) as string[];
  const unknown = names.filter((name) => !existsSync(new URL(`${name}.e2e-spec.ts`, tests)));
  if (new Set(names).size !== names.length || unknown.length > 0) {
    throw new Error(
      `database-suites.json: each suite once, of test/ (unknown: ${unknown.join(', ')})`,
    );
  }
  return names;
}
