import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { type Certificate, parseCertificate } from '../x509/chain.js';
import { trustAnchorLimits } from './trust-anchor-limits.js';
import { TrustAnchorsService } from './trust-anchors.service.js';

/**
 * Which certificates an `x5c` chain must end at for a tenant's verification (HAIP 1.0): the
 * tenant's anchors, or undefined when it has none, meaning any chain that holds together
 * (docs/trust-anchors.md). Parsed anchors are remembered by fingerprint: a certificate never changes.
 */
@Injectable()
export class TrustAnchorPolicy {
  private readonly parsed = new LRUCache<string, Certificate>({
    max: trustAnchorLimits.remembered,
  });

  constructor(private readonly anchors: TrustAnchorsService) {}

  async anchorsFor(tenantId: string): Promise<Certificate[] | undefined> {
    const rows = await this.anchors.certificatesOf(tenantId);
    if (rows.length === 0) return undefined;
    return rows.flatMap(({ fingerprint, certificate }) => {
      let anchor = this.parsed.get(fingerprint);
      if (anchor === undefined) {
        const read = parseCertificate(certificate);
        // Stored only once parsed: a row that no longer parses trusts nothing.
        if (typeof read === 'string') return [];
        anchor = read;
        this.parsed.set(fingerprint, anchor);
      }
      return [anchor];
    });
  }
}
