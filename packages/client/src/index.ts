/** The typed client of the agent service: `import { AgentClient } from '@agent-service/client'`. */
export {
  AgentClient,
  tokenUrlOf,
  type AgentClientOptions,
  type IdempotencyOptions,
} from './agent-client.js';
export { AgentApiError } from './agent-api-error.js';
export {
  TokenManager,
  defaultClientId,
  type ClientCredentials,
  type Credentials,
  type PasswordCredentials,
  type TokenManagerOptions,
} from './token-manager.js';
export { TokenRequestError } from './token-request-error.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEventBody,
} from './webhook-receiver.js';
export type {
  CreatedWebhook,
  CredentialConfiguration,
  CredentialConfigurationDefinition,
  CredentialConfigurationPage,
  CredentialStatusChange,
  Did,
  DidDocument,
  DidDocumentQuery,
  ErrorCode,
  IssueCredentialRequest,
  IssuedCredential,
  IssuedCredentialPage,
  ListCredentialConfigurationsQuery,
  ListCredentialsQuery,
  ListTenantsQuery,
  ListTrustedIssuersQuery,
  ListWebhooksQuery,
  NewCredentialConfiguration,
  NewTenant,
  NewTrustedIssuer,
  NewWebhook,
  PresentationVerification,
  Problem,
  RotatedWebhookSecret,
  Tenant,
  TenantChanges,
  TenantPage,
  TrustedIssuer,
  TrustedIssuerPage,
  VerifiableCredential,
  Verification,
  VerifyCredentialOptions,
  VerifyPresentationOptions,
  Webhook,
  WebhookChanges,
  WebhookDeliveryPage,
  WebhookPage,
} from './types.js';
export type { components, operations, paths } from './generated/schema.js';
