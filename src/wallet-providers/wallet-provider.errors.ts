import { DomainException } from '../common/problem/domain.exception.js';
import { walletProviderLimits } from './wallet-provider-limits.js';

export function walletProviderNotFound(id: string): DomainException {
  return new DomainException(
    'WALLET_PROVIDER_NOT_FOUND',
    `The tenant has no wallet provider '${id}'.`,
  );
}

export function walletProviderExists(subject: string): DomainException {
  return new DomainException(
    'WALLET_PROVIDER_ALREADY_EXISTS',
    `The certificate '${subject.slice(0, 200)}' is already a wallet provider of the tenant.`,
    [{ field: 'certificate', message: 'is already a wallet provider' }],
  );
}

export function walletProvidersFull(): DomainException {
  const most = walletProviderLimits.entries;
  return new DomainException(
    'WALLET_PROVIDERS_LIMIT_REACHED',
    `A tenant keeps at most ${most} wallet providers; delete one first.`,
    [{ field: 'certificate', message: `would be entry ${most + 1}; at most ${most}` }],
  );
}

/** Not a certificate, or one that may not be a wallet provider's: nothing is stored. */
export function certificateRefused(message: string): DomainException {
  return new DomainException('VALIDATION_FAILED', `The certificate ${message}.`, [
    { field: 'certificate', message },
  ]);
}
