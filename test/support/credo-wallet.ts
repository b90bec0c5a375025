import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import {
  Agent,
  DcqlModule,
  DependencyManager,
  DidsModule,
  InjectionSymbols,
  JwkDidRegistrar,
  JwkDidResolver,
  KeyDidRegistrar,
  KeyDidResolver,
  Kms,
  SdJwtVcModule,
  SdJwtVcRecord,
  X509Module,
  type AgentDependencies,
  type FileSystem,
  type SdJwtVcIssuer,
  type SdJwtVcPayload,
} from '@credo-ts/core';
import { OpenId4VcModule, type OpenId4VcIssuerModuleConfigOptions } from '@credo-ts/openid4vc';
import { type Express } from 'express';
import { InMemoryNodeKms } from './credo-kms.js';
import { InMemoryStorage } from './credo-storage.js';

/*
 * Credo 0.6 (@credo-ts/core, @credo-ts/openid4vc 0.6.3) in Jest's ESM mode: both packages ship ES
 * modules (.mjs) with `exports`, so no transformIgnorePatterns or mapper is needed; Node 20 runs them
 * under --experimental-vm-modules like our own code. One thing to keep: 'reflect-metadata' is imported
 * first (above), because Jest loads @peculiar/x509's CommonJS build, whose tsyringe throws "tsyringe
 * requires a reflect polyfill" without it. What Credo on Node usually brings and we do without:
 * @credo-ts/node (no 0.6 release: credo-kms.ts), Askar (a native binary: credo-storage.ts), and its
 * agent dependencies (below: no file system, no WebSocket; Node's fetch).
 */

/** Credo asks for a file system only for DIDComm and caches on disk, which this agent never uses. */
class NoFileSystem implements FileSystem {
  public readonly dataPath = '/nonexistent/credo';
  public readonly cachePath = '/nonexistent/credo/cache';
  public readonly tempPath = '/nonexistent/credo/tmp';
  public exists = () => Promise.resolve(false);
  public createDirectory = () => this.#refuse();
  public copyFile = () => this.#refuse();
  public write = () => this.#refuse();
  public read = () => this.#refuse();
  public delete = () => this.#refuse();
  public downloadToFile = () => this.#refuse();
  #refuse(): Promise<never> {
    return Promise.reject(new Error('The test agent has no file system'));
  }
}

const dependencies: AgentDependencies = {
  FileSystem: NoFileSystem,
  EventEmitterClass: EventEmitter,
  fetch: (input, init) => fetch(input, init),
  WebSocketClass: class {
    constructor() {
      throw new Error('The test agent opens no WebSocket');
    }
  } as unknown as AgentDependencies['WebSocketClass'],
};

export interface CredoWalletOptions {
  /** X.509 roots (PEM or base64 DER) Credo trusts for x5c-signed credentials and request objects. */
  trustedCertificates?: string[];
  /** Makes the agent an OpenID4VCI issuer too, its endpoints routed on `app`. */
  issuer?: { app: Express; config: OpenId4VcIssuerModuleConfigOptions };
}

function modulesFor(options: CredoWalletOptions) {
  return {
    kms: new Kms.KeyManagementModule({ backends: [new InMemoryNodeKms()] }),
    dids: new DidsModule({
      resolvers: [new KeyDidResolver(), new JwkDidResolver()],
      registrars: [new KeyDidRegistrar(), new JwkDidRegistrar()],
    }),
    sdJwtVc: new SdJwtVcModule(),
    dcql: new DcqlModule(),
    x509: new X509Module({ trustedCertificates: options.trustedCertificates ?? [] }),
    openid4vc: new OpenId4VcModule({ app: options.issuer?.app, issuer: options.issuer?.config }),
  };
}

export type CredoAgent = Agent<ReturnType<typeof modulesFor>>;

/**
 * A Credo agent with keys and records in memory, as a holder (OpenID4VCI, OpenID4VP) and as an
 * issuer of SD-JWT VCs (its SD-JWT VC module). Plain http is allowed: the test service listens on
 * loopback without TLS.
 */
export async function startCredoAgent(options: CredoWalletOptions = {}): Promise<CredoAgent> {
  const dependencyManager = new DependencyManager();
  dependencyManager.registerInstance(InjectionSymbols.StorageService, new InMemoryStorage());
  const agent = new Agent(
    {
      config: { allowInsecureHttpUrls: true, autoUpdateStorageOnStartup: true },
      dependencies,
      modules: modulesFor(options),
    },
    dependencyManager,
  );
  await agent.initialize();
  return agent;
}

/**
 * Receives the credentials of an offer link (pre-authorized code flow, OpenID4VCI 1.0 §3.5): resolves
 * the offer and the issuer's metadata, trades the code (and transaction code) for a token, and asks
 * for each offered configuration with a new P-256 key, proven by a JWT proof. Credo verifies each
 * credential before it stores it; what it received is answered.
 */
export async function receiveWithCredo(agent: CredoAgent, link: string, txCode?: string) {
  const holder = agent.openid4vc.holder;
  const resolvedCredentialOffer = await holder.resolveCredentialOffer(link);
  const token = await holder.requestToken({ resolvedCredentialOffer, txCode });
  const received = await holder.requestCredentials({
    resolvedCredentialOffer,
    ...token,
    credentialBindingResolver: async () => {
      const key = await agent.kms.createKey({ type: { kty: 'EC', crv: 'P-256' } });
      return { method: 'jwk', keys: [Kms.PublicJwk.fromPublicJwk(key.publicJwk)] };
    },
  });
  for (const { record } of received.credentials) await storeRecord(agent, record);
  return received.credentials.map(({ record }) => record);
}

async function storeRecord(agent: CredoAgent, record: { type: string }) {
  if (record.type !== 'SdJwtVcRecord') throw new Error(`Not an SD-JWT VC: ${record.type}`);
  await agent.sdJwtVc.store({ record: record as SdJwtVcRecord });
}

/** Credo signs an SD-JWT VC bound to a new key of its own, and keeps it: Credo as issuer and holder. */
export async function issueWithCredo(
  agent: CredoAgent,
  issuer: SdJwtVcIssuer,
  payload: SdJwtVcPayload,
  disclosable: string[],
) {
  const holderKey = await agent.kms.createKey({ type: { kty: 'EC', crv: 'P-256' } });
  const { compact } = await agent.sdJwtVc.sign({
    issuer,
    holder: { method: 'jwk', jwk: Kms.PublicJwk.fromPublicJwk(holderKey.publicJwk) },
    payload,
    disclosureFrame: { _sd: disclosable },
  });
  const record = await agent.sdJwtVc.store({
    record: new SdJwtVcRecord({
      credentialInstances: [{ compactSdJwtVc: compact, kmsKeyId: holderKey.keyId }],
    }),
  });
  return { compact, record };
}

/** A did:key of the agent (P-256), as the `did` issuer of `issueWithCredo`. */
export async function credoDidIssuer(agent: CredoAgent): Promise<SdJwtVcIssuer> {
  const created = await agent.dids.create({
    method: 'key',
    options: { createKey: { type: { kty: 'EC', crv: 'P-256' } } },
  });
  const document = created.didState.didDocument;
  const method = document?.verificationMethod?.[0];
  if (!method) throw new Error(`Credo made no did:key: ${JSON.stringify(created.didState)}`);
  return { method: 'did', didUrl: method.id };
}

/**
 * Answers an OpenID4VP authorization request link (OpenID4VP 1.0 §5) with the stored credentials its
 * DCQL query matches, the first match per query: Credo resolves the link, fetches and verifies the
 * request object, presents with a KB-JWT for the request's nonce and client id, and posts the answer
 * by the request's response mode (`direct_post` or `direct_post.jwt`).
 */
export async function presentWithCredo(agent: CredoAgent, link: string) {
  const holder = agent.openid4vc.holder;
  const resolved = await holder.resolveOpenId4VpAuthorizationRequest(link);
  const queryResult = resolved.dcql?.queryResult;
  if (!queryResult) throw new Error('The request has no DCQL query');
  if (!queryResult.can_be_satisfied)
    throw new Error('Credo holds no credential that satisfies the request');
  const credentials = holder.selectCredentialsForDcqlRequest(queryResult);
  const answer = await holder.acceptOpenId4VpAuthorizationRequest({
    authorizationRequestPayload: resolved.authorizationRequestPayload,
    dcql: { credentials },
  });
  return { resolved, answer };
}
