// Adds lockfile entries for optional platform packages that the registry mirror of our build machines
// does not serve (npm then leaves them out of package-lock.json, and `npm ci` refuses the lock as out of
// sync). The entries are marked optional: npm skips them on other platforms and fetches them normally
// where they exist. Run after changing dependencies: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path === '' ? '' : `${path}/`}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (lock.packages[nested] !== undefined || lock.packages[hoisted] !== undefined) continue;
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) continue;
    lock.packages[hoisted] = { version, dev: entry.dev, optional: true };
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([left], [right]) =>
    left === '' ? -1 : right === '' ? 1 : left.localeCompare(right),
  ),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length === 0 ? 'package-lock.json is complete' : `added ${added.join(', ')}`);
