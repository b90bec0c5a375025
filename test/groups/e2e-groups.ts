import { readdirSync } from 'node:fs';

/**
 * `npm test` runs the e2e suites (`test/*.e2e-spec.ts`) in this many groups, one Jest file each
 * (`test/groups/e2e-NN.e2e-group.ts`), so that Jest loads the service's module tree once per group
 * rather than once per suite (docs/architecture.md, Tests). A suite is still a file of its own, run
 * alone with `npm run test:file -- test/<name>.e2e-spec.ts`.
 */
export const groupCount = 15;

/** The suites of group `group` (0-based): every `groupCount`th suite by name, as import specifiers. */
export function suitesOf(group: number): string[] {
  const groups = readdirSync(new URL('.', import.meta.url)).filter((name) =>
    name.endsWith('.e2e-group.ts'),
  );
  // A group file more or fewer would run a suite twice or never.
  if (groups.length !== groupCount) {
    throw new Error(`test/groups has ${groups.length} group files for ${groupCount} groups`);
  }
  return readdirSync(new URL('..', import.meta.url))
    .filter((name) => name.endsWith('.e2e-spec.ts'))
    .sort()
    .filter((_, index) => index % groupCount === group)
    .map((name) => `../${name.replace(/\.ts$/, '.js')}`);
}
