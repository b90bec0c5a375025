import { Global, Module, type DynamicModule, type Type } from '@nestjs/common';
import { EventOutbox } from './event-outbox.js';

/** Makes the feature that implements the outbox (webhooks) available to every feature as EventOutbox. */
@Global()
@Module({})
export class EventsModule {
  static providedBy(
    implementation: Type<EventOutbox>,
    imports: DynamicModule['imports'],
  ): DynamicModule {
    return {
      module: EventsModule,
      imports,
      providers: [{ provide: EventOutbox, useExisting: implementation }],
      exports: [EventOutbox],
    };
  }
}
