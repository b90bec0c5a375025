import { type OfferStatus } from './offer.entity.js';
import { closedOfferDescription, closedOfferDescriptions } from './offer-closed.js';

describe(closedOfferDescription.name, () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const later = new Date(now + 60_000);
  const earlier = new Date(now - 1);

  it.each<[OfferStatus, Date, string | undefined]>([
    ['offered', later, undefined],
    ['offered', earlier, closedOfferDescriptions.expired],
    ['offered', new Date(now), closedOfferDescriptions.expired],
    ['accepted', later, closedOfferDescriptions.used],
    ['accepted', earlier, closedOfferDescriptions.expired],
    ['issued', earlier, closedOfferDescriptions.used],
    ['expired', later, closedOfferDescriptions.expired],
    ['failed', later, closedOfferDescriptions.failed],
    ['withdrawn', earlier, closedOfferDescriptions.withdrawn],
  ])('an offer %s, ending at %s, reads: %s', (status, expiresAt, words) => {
    expect(closedOfferDescription(status, expiresAt, now)).toBe(words);
  });

  it('tells the person what to do in every case', () => {
    for (const words of Object.values(closedOfferDescriptions))
      expect(words).toMatch(/Ask the issuer for a new one\.$/);
  });
});
