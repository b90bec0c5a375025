import { readdirSync, readFileSync } from 'node:fs';

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

/** The suites of group `group` (0-based) of `npm test`: every `groupCount`th suite by name. */
export function suitesOf(group: number): string[] {
  const names = readdirSync(new URL('..', import.meta.url))
    .filter((name) => name.endsWith('.e2e-spec.ts'))
    .map((name) => name.slice(0, -'.e2e-spec.ts'.length));
  return groupOf(names, group, groupCount, '.e2e-group.ts');
}

/** The suites of group `group` (0-based) of `npm run test:external`. */
export function databaseSuitesOf(group: number): string[] {
  const names = JSON.parse(readFileSync(new URL('database-suites.json', here), 'utf8')) as string[];
  return groupOf(names, group, externalGroupCount, '.external-group.ts');
}

/** Every `count`th of `names` (sorted) from `group`, as import specifiers of their spec files. */
function groupOf(names: string[], group: number, count: number, groupSuffix: string): string[] {
  const files = readdirSync(here).filter((name) => name.endsWith(groupSuffix)).length;
  // A group file more or fewer would run a suite twice or never.
  if (files !== count) throw new Error(`test/groups has ${files} *${groupSuffix} for ${count}`);
  return [...names]
    .sort()
    .filter((_, index) => index % count === group)
    .map((name) => `../${name}.e2e-spec.js`);
}
