/** Milliseconds since the epoch. Tests hand the issuer a clock they control instead of sleeping. */
export type Clock = () => number;

export const ISSUER_CLOCK = Symbol('ISSUER_CLOCK');

export const systemClock: Clock = () => Date.now();
