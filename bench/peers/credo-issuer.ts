/**
 * The benchmark's peer issuer: Credo 0.6.3's OpenID4VCI issuer on Express, keys and records in memory,
 * signing ES256 SD-JWT VCs with x5c, each claim selectively disclosable, bound to the proof's key.
 * `POST /offers` ({ claims }) makes a pre-authorized-code offer and answers { credentialOffer }. It
 * listens on PORT (0: any) and prints {"port": n} once it serves (bench/processes.mjs, startScript).
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import express from 'express';
import { type OpenId4VciCredentialRequestToCredentialMapper } from '@credo-ts/openid4vc';
import { startCredoAgent, type CredoAgent } from '../../test/support/credo-wallet.js';
import { createCredoIssuerCa, type CredoIssuerCa } from '../../test/support/credo-ca.js';

const configurationId = 'bench-identity';
const vct = 'https://credentials.example.com/identity_credential';
const claimNames = ['given_name', 'family_name', 'birthdate'];

const app = express();
const server = createServer(app);
await new Promise<void>((listening) =>
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', listening),
);
const { port } = server.address() as AddressInfo;

// Filled once the agent is up: the certificate's key is imported into the agent's KMS.
const signing: { ca?: CredoIssuerCa } = {};

const toCredential: OpenId4VciCredentialRequestToCredentialMapper = ({
  holderBinding,
  issuanceSession,
}) => {
  const { ca } = signing;
  if (ca === undefined) throw new Error('No issuer certificate yet');
  const issuer = { method: 'x5c' as const, x5c: [ca.leaf], issuer: ca.issuer };
  const claims = (issuanceSession.issuanceMetadata?.claims ?? {}) as Record<string, unknown>;
  return {
    type: 'credentials',
    format: 'dc+sd-jwt',
    credentials: holderBinding.keys.map((key) => {
      if (key.method !== 'jwk') throw new Error('Only keys (jwk) are bound here');
      return {
        payload: { ...claims, vct },
        disclosureFrame: { _sd: claimNames },
        holder: { method: 'jwk', jwk: key.jwk },
        issuer,
      };
    }),
  };
};

const agent: CredoAgent = await startCredoAgent({
  issuer: {
    app,
    config: {
      baseUrl: `http://127.0.0.1:${port}/oid4vci`,
      credentialRequestToCredentialMapper: toCredential,
    },
  },
});
signing.ca = await createCredoIssuerCa(agent);
const issuerApi = agent.openid4vc.issuer;
if (issuerApi === undefined) throw new Error('The agent has no OpenID4VCI issuer');
const { issuerId } = await issuerApi.createIssuer({
  credentialConfigurationsSupported: {
    [configurationId]: {
      format: 'dc+sd-jwt',
      vct,
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
    },
  },
});

app.post('/offers', express.json(), async (request, response) => {
  const { claims } = request.body as { claims?: Record<string, unknown> };
  try {
    const { issuanceSession } = await issuerApi.createCredentialOffer({
      issuerId,
      credentialConfigurationIds: [configurationId],
      preAuthorizedCodeFlowConfig: {},
      issuanceMetadata: { claims: claims ?? {} },
      version: 'v1',
    });
    response.status(201).json({ credentialOffer: issuanceSession.credentialOfferPayload });
  } catch (error) {
    response.status(500).json({ error: String(error) });
  }
});

const stop = () => {
  server.close();
  void agent.shutdown().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdout.write(`${JSON.stringify({ port })}\n`);
