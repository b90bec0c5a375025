import { Injectable } from '@nestjs/common';
import { TrustedIssuersService } from './trusted-issuers.service.js';

/**
 * Whose credentials a tenant's verification accepts, for any verifier (the VC API routes today, an
 * OpenID4VP verifier later): the list the request names wins, else the tenant's own list, else
 * undefined, meaning any issuer whose key resolves.
 */
@Injectable()
export class TrustedIssuerPolicy {
  constructor(private readonly trustedIssuers: TrustedIssuersService) {}

  async trustedFor(
    tenantId: string,
    options: { trustedIssuers?: readonly string[] } = {},
  ): Promise<ReadonlySet<string> | undefined> {
    if (options.trustedIssuers !== undefined) return new Set(options.trustedIssuers);
    return trustedIssuersFrom(await this.trustedIssuers.issuersOf(tenantId));
  }
}

/**
 * The tenant's list already read (its `tenant_trusted_issuer` rows, read with its anchors), for a
 * request that names none: undefined when it is empty.
 */
export function trustedIssuersFrom(kept: readonly string[]): ReadonlySet<string> | undefined {
  return kept.length > 0 ? new Set(kept) : undefined;
}
