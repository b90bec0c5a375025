import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { type Certificate, parseCertificate } from '../x509/chain.js';
import { walletProviderLimits } from './wallet-provider-limits.js';
import { WalletProviderRepository } from './wallet-provider.repository.js';

/**
 * The certificates a wallet or key attestation's `x5c` chain must end at for a tenant: its wallet
 * providers, none when it lists none (then no attestation is trusted, docs/wallet-providers.md).
 * Parsed certificates are remembered by fingerprint: a certificate never changes.
 */
@Injectable()
export class WalletProviderCertificates {
  private readonly parsed = new LRUCache<string, Certificate>({
    max: walletProviderLimits.remembered,
  });

  constructor(private readonly providers: WalletProviderRepository) {}

  async of(tenantId: string): Promise<Certificate[]> {
    const rows = await this.providers.certificatesOf(tenantId);
    return rows.flatMap(({ fingerprint, certificate }) => {
      let parsed = this.parsed.get(fingerprint);
      if (parsed === undefined) {
        const read = parseCertificate(certificate);
        // Stored only once parsed: a row that no longer parses trusts nothing.
        if (typeof read === 'string') return [];
        parsed = read;
        this.parsed.set(fingerprint, parsed);
      }
      return [parsed];
    });
  }
}
