import { type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express, type Request, type Response } from 'express';
import { createServer, IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';

/**
 * Nest's ExpressAdapter with one change: Node creates every request and response already carrying
 * Express's prototypes. Express 5 re-parents both objects on every request
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`, kept for mounted sub-apps, which Nest does
 * not use). V8 deoptimizes objects whose prototype changes, and each request's objects then outlived
 * their request and were promoted to the old generation: bare Express 5 answered a constant JSON body
 * 4.6 times slower than with this change, and this service spent a tenth of its time in GC pauses
 * (issue 6; README, Performance; expressjs/express#5998). Express still calls `setPrototypeOf`, with the
 * prototype the object already has, which changes nothing.
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
