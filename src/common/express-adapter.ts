import { type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express, type Request, type Response } from 'express';
import { createServer, IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';

/**
 * Nest's ExpressAdapter with one change: Node creates every request and response already carrying
 * Express's prototypes, because Express 5 re-parents both on every request (`setPrototypeOf` in
 * `app.handle`), which V8 punishes with deoptimized, longer-lived objects (docs/performance.md;
 * expressjs/express#5998). The one place that relies on Express internals (`app.request`,
 * `app.response`); test/smoke.e2e-spec.ts fails if an Express upgrade changes them.
 */
export class PresetPrototypesExpressAdapter extends ExpressAdapter {
  /** `serverOptions`: node:http's own (timeouts, Host header rule) for the server it makes. */
  constructor(private readonly serverOptions: ServerOptions = {}) {
    super(express());
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (
      options.httpsOptions !== undefined ||
      options.forceCloseConnections === true ||
      options.return503OnClosing === true
    ) {
      throw new Error(
        'PresetPrototypesExpressAdapter makes a plain HTTP server only (TLS ends at the gateway)',
      );
    }
    const app = this.getInstance<Express>();
    // Request.prototype -> app.request -> Express's request -> IncomingMessage.prototype; same for responses.
    class ExpressRequest extends IncomingMessage {}
    Object.setPrototypeOf(ExpressRequest.prototype, app.request);
    class ExpressResponse extends ServerResponse {}
    Object.setPrototypeOf(ExpressResponse.prototype, app.response);
    app.request = ExpressRequest.prototype as unknown as Request;
    app.response = ExpressResponse.prototype as unknown as Response;
    this.httpServer = createServer(
      { ...this.serverOptions, IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse },
      app,
    );
  }
}
