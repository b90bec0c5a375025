import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contexts as credentials } from '@digitalbazaar/credentials-context';
import { contexts as credentialsExamples } from '@digitalbazaar/credentials-examples-context';
import { contexts as dataIntegrity } from '@digitalbazaar/data-integrity-context';
import { contexts as multikey } from '@digitalbazaar/multikey-context';
import { contexts as odrl } from '@digitalbazaar/odrl-context';
import { contexts as statusList } from '@digitalbazaar/vc-bitstring-status-list-context';
import { contexts as did } from 'did-context';
import { contexts as ed25519Signature2020 } from 'ed25519-signature-2020-context';

/** In no npm package; this is its whole published body. */
const examplesV2 = {
  '@context': { '@vocab': 'https://www.w3.org/ns/credentials/examples#' },
};

/** The JSON-LD contexts a credential may use without any network access: the bundled allowlist. */
export function bundledContexts(): Map<string, unknown> {
  const all = new Map<string, unknown>();
  for (const source of [
    credentials,
    credentialsExamples,
    odrl,
    dataIntegrity,
    multikey,
    ed25519Signature2020,
    statusList,
    did,
  ]) {
    for (const [url, context] of source) all.set(url, context);
  }
  all.set('https://www.w3.org/ns/credentials/examples/v2', examplesV2);
  return all;
}

/**
 * Contexts an operator adds: every `*.json`/`*.jsonld` file in the folder, each a JSON object naming
 * the URL it answers for in a top-level `"url"` beside its `"@context"` (the `url` member is dropped).
 */
export function contextsFromFolder(folder: string): Map<string, unknown> {
  const added = new Map<string, unknown>();
  for (const file of readdirSync(folder)
    .filter((name) => /\.json(ld)?$/.test(name))
    .sort()) {
    const path = join(folder, file);
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${path}: a context file must be a JSON object`);
    }
    const { url, ...context } = parsed as Record<string, unknown>;
    if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url) || !('@context' in context)) {
      throw new Error(`${path}: needs a string "url" (http or https) and an "@context"`);
    }
    added.set(url, context);
  }
  return added;
}
