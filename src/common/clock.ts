import { Global, Module, type DynamicModule } from '@nestjs/common';

/** Milliseconds since the epoch. Tests hand the service a clock they control instead of sleeping. */
export type Clock = () => number;

/** Injection token of the one clock the service's rules read (expiries, lockouts, lifetimes). */
export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = () => Date.now();

/** Provides CLOCK to every module: global, so that a feature needs no import to read the time. */
@Global()
@Module({})
export class ClockModule {
  static register(clock: Clock = systemClock): DynamicModule {
    return {
      module: ClockModule,
      providers: [{ provide: CLOCK, useValue: clock }],
      exports: [CLOCK],
    };
  }
}
