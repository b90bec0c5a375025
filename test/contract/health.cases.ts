import type { Case, ContractContext } from './context.js';

/** The probes, which need no token. */
export function healthCases(context: ContractContext): Case[] {
  const { send, anonymous } = context;
  return [
    {
      operationId: 'live',
      status: 200,
      when: 'the process runs',
      send: () => send('/ctrl/health/live', anonymous),
    },
    {
      operationId: 'ready',
      status: 200,
      when: 'the database and the issuer keys are there',
      send: () => send('/ctrl/health/ready', anonymous),
    },
  ];
}
