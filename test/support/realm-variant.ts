import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRealmFilePath, type RealmFile } from '../../src/issuer/realm-file.js';

/** A copy of the shipped realm file, changed by `edit`, for a service of its own (AUTH_REALM_FILE). */
export function realmVariant(edit: (realm: RealmFile) => void): string {
  const realm = JSON.parse(readFileSync(defaultRealmFilePath(), 'utf8')) as RealmFile;
  edit(realm);
  const file = join(mkdtempSync(join(tmpdir(), 'agent-realm-')), 'agent-cloud-realm.json');
  writeFileSync(file, JSON.stringify(realm, null, 2));
  return file;
}
