export interface DidKeyDriver {
  use(options: { multibaseMultikeyHeader: string; fromMultibase: unknown }): void;
  get(options: { did: string }): Promise<unknown>;
}

/**
 * Digital Bazaar's did:key resolver, an implementation independent of ours, set up for one form of the
 * document: the Ed25519VerificationKey2020 suite (with its X25519 key agreement key), or Multikey
 * (@digitalbazaar/ed25519-multikey, the did:key specification's current form). The packages ship no
 * type declarations; importing through a variable keeps the compiler from looking for them.
 */
export async function independentResolver(
  form: 'ed25519-2020' | 'multikey' = 'ed25519-2020',
): Promise<DidKeyDriver> {
  const didMethodKeyPackage = '@digitalbazaar/did-method-key';
  const keyPackage =
    form === 'multikey'
      ? '@digitalbazaar/ed25519-multikey'
      : '@digitalbazaar/ed25519-verification-key-2020';
  const didMethodKey = (await import(didMethodKeyPackage)) as { driver(): DidKeyDriver };
  const keys = (await import(keyPackage)) as {
    from?: unknown;
    Ed25519VerificationKey2020?: { from: unknown };
  };
  const driver = didMethodKey.driver();
  driver.use({
    multibaseMultikeyHeader: 'z6Mk',
    fromMultibase: form === 'multikey' ? keys.from : keys.Ed25519VerificationKey2020?.from,
  });
  return driver;
}
