import { certificateRow, fakeCertificateRepository } from '../../test/support/certificate-fakes.js';
import { fakeOutbox, fakeTransactions, testClock } from '../../test/support/service-fakes.js';
import { CertificateExpiry } from './certificate-expiry.js';

const day = 86_400_000;

/** The expiry job on a clock the test moves: each event once per certificate, in its batch's transaction. */
describe(CertificateExpiry.name, () => {
  const notAfter = Date.UTC(2026, 5, 1);

  function newJob() {
    const time = testClock(notAfter - 40 * day);
    const certificates = fakeCertificateRepository(time.clock);
    const transactions = fakeTransactions();
    const outbox = fakeOutbox();
    const job = new CertificateExpiry(
      transactions.dataSource,
      time.clock,
      certificates.repository,
      outbox.outbox,
    );
    certificates.rows.push(
      certificateRow({ id: 'c1', tenantId: 'acme', notAfter: new Date(notAfter) }),
      certificateRow({
        id: 'old',
        tenantId: 'acme',
        status: 'superseded',
        notAfter: new Date(notAfter - day),
      }),
    );
    return { time, certificates, outbox, transactions, job };
  }

  it('announces nothing more than 30 days before notAfter', async () => {
    const { job, outbox } = newJob();
    expect(await job.runOnce()).toEqual({ expiring: 0, expired: 0 });
    expect(outbox.events).toEqual([]);
  });

  it('announces certificate.expiring once within 30 days, then certificate.expired once past notAfter', async () => {
    const { job, outbox, time, certificates, transactions } = newJob();
    time.advance(11 * day);
    expect(await job.runOnce()).toEqual({ expiring: 1, expired: 0 });
    expect(outbox.events).toEqual([
      {
        type: 'certificate.expiring',
        tenantId: 'acme',
        data: { certificateId: 'c1', notAfter: new Date(notAfter).toISOString() },
      },
    ]);
    // Written in the batch's transaction.
    expect(outbox.managers).toEqual([transactions.manager]);

    time.advance(day);
    expect(await job.runOnce()).toEqual({ expiring: 0, expired: 0 });

    time.advance(30 * day);
    expect(await job.runOnce()).toEqual({ expiring: 0, expired: 1 });
    expect(outbox.events.map(({ type }) => type)).toEqual([
      'certificate.expiring',
      'certificate.expired',
    ]);
    expect(certificates.rows.find(({ id }) => id === 'c1')!.status).toBe('expired');

    time.advance(day);
    expect(await job.runOnce()).toEqual({ expiring: 0, expired: 0 });
    expect(outbox.events).toHaveLength(2);
  });

  it('marks one found already past its time expired without announcing it expiring', async () => {
    const { job, outbox, time } = newJob();
    time.advance(41 * day);
    expect(await job.runOnce()).toEqual({ expiring: 0, expired: 1 });
    expect(outbox.events.map(({ type }) => type)).toEqual(['certificate.expired']);
  });
});
