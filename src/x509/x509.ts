// @peculiar/x509 reads decorator metadata when it loads: the polyfill comes first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// Node's WebCrypto, set once here: every file of this folder imports @peculiar/x509 through this one.
// The library's types name the DOM's Crypto and CryptoKey, which Node's implement (no DOM lib here).
x509.cryptoProvider.set(webcrypto as never);

/** A Node WebCrypto key (or pair) as the library's parameters type it. */
export function libraryKey(key: webcrypto.CryptoKey | webcrypto.CryptoKeyPair): never {
  return key as never;
}

export { x509 };
