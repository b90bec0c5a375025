export interface DidKeyDriver {
  use(options: { multibaseMultikeyHeader: string; fromMultibase: unknown }): void;
  get(options: { did: string }): Promise<unknown>;
}

/**
 * Digital Bazaar's did:key resolver, an implementation independent of ours. The packages ship no type
 * declarations; importing through a variable keeps the compiler from looking for them.
 */
export async function independentResolver(): Promise<DidKeyDriver> {
  const didMethodKeyPackage = '@digitalbazaar/did-method-key';
  const verificationKeyPackage = '@digitalbazaar/ed25519-verification-key-2020';
  const didMethodKey = (await import(didMethodKeyPackage)) as { driver(): DidKeyDriver };
  const { Ed25519VerificationKey2020 } = (await import(verificationKeyPackage)) as {
    Ed25519VerificationKey2020: { from: unknown };
  };
  const driver = didMethodKey.driver();
  driver.use({ multibaseMultikeyHeader: 'z6Mk', fromMultibase: Ed25519VerificationKey2020.from });
  return driver;
}
