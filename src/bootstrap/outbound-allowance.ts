import { type Logger } from '@nestjs/common';
import { type Settings } from '../config/settings.js';

/** Says once which targets beyond public https webhooks and status lists may reach (operations.md). */
export function announceOutboundAllowance(
  settings: Settings,
  logger: Logger,
  ports: (number | undefined)[],
): void {
  const allowances = [
    ['webhooks', 'WEBHOOK_ALLOW_PRIVATE_TARGETS', settings.webhookAllowPrivateTargets],
    [
      'status list fetches (and did:web documents, https only)',
      'STATUS_LIST_ALLOW_PRIVATE_TARGETS',
      settings.statusListAllowPrivateTargets,
    ],
  ] as const;
  const parts = allowances.flatMap(([what, variable, allowed]) => {
    if (allowed === false) return [];
    return allowed === 'loopback'
      ? [`${what} may reach loopback (127.0.0.0/8, ::1; ${variable} unset in local mode)`]
      : [`${what} may reach loopback and private ranges (${variable}=true)`];
  });
  if (parts.length === 0) return;
  const own = ports.filter((port) => port !== undefined).join(', ');
  const message =
    `Beyond public https, ${parts.join('; ')}, over plain http too, on any port but this ` +
    `service's own (${own}); production refuses them.`;
  if (allowances.some(([, , allowed]) => allowed === true)) logger.warn(message);
  else logger.log(message);
}
