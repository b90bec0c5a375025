// The Digital Bazaar libraries ship JavaScript without types: the little of their public API we call.

type JsonObject = Record<string, unknown>;

interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
}
type DocumentLoader = (url: string) => Promise<RemoteDocument>;

interface Signer {
  id: string;
  algorithm: string;
  sign(options: { data: Uint8Array }): Promise<Uint8Array>;
}

interface ProofVerification {
  verified: boolean;
  error?: Error;
}

interface LinkedDataSuite {
  verificationMethod?: string;
  verifyProof(options: {
    proof: JsonObject;
    document: JsonObject;
    documentLoader: DocumentLoader;
    proofSet?: JsonObject[];
  }): Promise<ProofVerification>;
}

declare module '@digitalbazaar/vc' {
  export function issue(options: {
    credential: JsonObject;
    suite: LinkedDataSuite;
    documentLoader: DocumentLoader;
    now?: Date;
  }): Promise<JsonObject>;
  export const dateRegex: RegExp;
  export function verifyCredential(options: {
    credential: JsonObject;
    suite: LinkedDataSuite;
    documentLoader: DocumentLoader;
    checkStatus?: (options: { credential: JsonObject }) => Promise<unknown>;
  }): Promise<{ verified: boolean; error?: Error; statusResult?: unknown }>;
  export function signPresentation(options: {
    presentation: JsonObject;
    suite: LinkedDataSuite;
    documentLoader: DocumentLoader;
    challenge: string;
    domain?: string;
  }): Promise<JsonObject>;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof implements LinkedDataSuite {
    constructor(options: { signer?: Signer; date?: string | Date; cryptosuite: object });
    verificationMethod?: string;
    verifyProof: LinkedDataSuite['verifyProof'];
  }
}

declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: { name: string };
}

declare module '@digitalbazaar/eddsa-jcs-2022-cryptosuite' {
  export function createSignCryptosuite(): { name: string };
  export function createVerifyCryptosuite(): { name: string };
}

declare module '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite' {
  export const cryptosuite: { name: string };
}

declare module '@digitalbazaar/ecdsa-jcs-2019-cryptosuite' {
  export function createSignCryptosuite(): { name: string };
  export function createVerifyCryptosuite(): { name: string };
}

interface MultikeyPair {
  id: string;
  controller: string;
  publicKeyMultibase: string;
  signer(): Signer;
}

declare module '@digitalbazaar/ecdsa-multikey' {
  export function generate(options: {
    curve: 'P-256' | 'P-384';
    id?: string;
    controller?: string;
  }): Promise<MultikeyPair>;
  export function toJwk(options: { keyPair: MultikeyPair }): Promise<JsonObject>;
}

declare module '@digitalbazaar/ed25519-signature-2020' {
  export class Ed25519Signature2020 implements LinkedDataSuite {
    verifyProof: LinkedDataSuite['verifyProof'];
  }
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/vc-bitstring-status-list-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/multikey-context' {
  export const contexts: Map<string, object>;
}

declare module 'ed25519-signature-2020-context' {
  export const contexts: Map<string, object>;
}

declare module 'did-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/credentials-examples-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/odrl-context' {
  export const contexts: Map<string, object>;
}

declare module 'jsonld' {
  const jsonld: {
    expand(
      document: JsonObject,
      options: { documentLoader: DocumentLoader; safe: boolean },
    ): Promise<unknown[]>;
    canonize(
      document: JsonObject,
      options: {
        algorithm: string;
        format: string;
        rdfDirection?: string;
        documentLoader: DocumentLoader;
        safe: boolean;
      },
    ): Promise<string>;
  };
  export default jsonld;
}

declare module '@digitalbazaar/citizenship-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export interface BitstringStatusList {
    setStatus(index: number, status: boolean): void;
  }
  export function createList(options: { length: number }): Promise<BitstringStatusList>;
  export function createCredential(options: {
    id: string;
    list: BitstringStatusList;
    statusPurpose: string;
  }): Promise<JsonObject>;
  export function checkStatus(options: {
    credential: JsonObject;
    documentLoader: DocumentLoader;
    suite: LinkedDataSuite;
    verifyBitstringStatusListCredential?: boolean;
    verifyMatchingIssuers?: boolean;
  }): Promise<{ verified: boolean; results?: { status: boolean }[]; error?: Error }>;
}

declare module '@digitalbazaar/ed25519-multikey' {
  export function generate(options?: { id?: string; controller?: string }): Promise<MultikeyPair>;
  export function toJwk(options: { keyPair: MultikeyPair }): Promise<JsonObject>;
}

// jsonld's context processing, which jsonld-context-memo.ts wraps (not public API: pinned by its spec).
declare module 'jsonld/lib/context.js' {
  export interface ActiveContext {
    mappings: Map<string, unknown>;
    protected: Record<string, unknown>;
    inverse: unknown;
    getInverse: unknown;
    previousContext?: ActiveContext;
    clone: (this: ActiveContext) => ActiveContext;
    revertToPreviousContext: (this: ActiveContext) => ActiveContext;
    '@base'?: unknown;
    '@language'?: unknown;
    '@vocab'?: unknown;
    '@direction'?: unknown;
    '@version'?: unknown;
    processingMode?: unknown;
  }
  export interface ProcessArguments {
    activeCtx: ActiveContext;
    localCtx: unknown;
    options: {
      base?: unknown;
      processingMode?: unknown;
      eventHandler?: unknown;
      contextResolver?: unknown;
    };
    propagate?: boolean;
    overrideProtected?: boolean;
    cycles?: Set<unknown>;
  }
  const api: {
    process: (args: ProcessArguments) => Promise<ActiveContext>;
    getInitialContext: (options: Record<string, unknown>) => ActiveContext;
  };
  export default api;
}

declare module 'jsonld/lib/events.js' {
  const events: {
    handleEvent(args: { event: unknown; options: { eventHandler?: unknown } }): void;
  };
  export default events;
}

declare module 'jsonld/lib/ContextResolver.js' {
  export default class ContextResolver {
    constructor(options: { sharedCache: Map<string, unknown> });
  }
}
