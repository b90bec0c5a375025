// @ts-check
// What the stack floors (bench/sd-jwt-stack-floor.mjs, bench/sd-jwt-presentation-stack-floor.mjs,
// bench/credential-stack-floor.mjs, bench/did-stack-floor.mjs) share: the service's stack and nothing
// else of it, a NestJS app on Express (through the service's adapter) with its routes (no pipes, interceptors, logging or metrics, and no
// guard but the one a floor names; no ETag and no X-Powered-By, as the service's src/configure-app.ts)
// and a pool of PostgreSQL connections like the service's, with tables in a schema of its own that is
// dropped when it stops.
import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  Header,
  Headers,
  HttpCode,
  Module,
  Post,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
// The service's adapter (its one reach into Express's internals): the floor must not pay what it saves.
import { PresetPrototypesExpressAdapter } from '../dist/src/common/express-adapter.js';

/**
 * A pool on `databaseUrl` (as large as the service's, src/database/data-source.ts) and a new schema,
 * made with `tables` (statements where `{schema}` stands for its name).
 * @param {string | undefined} databaseUrl @param {string[]} tables
 */
export async function floorDatabase(databaseUrl, tables) {
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const schema = `bench_floor_${process.pid}`;
  await pool.query(`CREATE SCHEMA ${schema}`);
  for (const table of tables) await pool.query(table.replaceAll('{schema}', schema));
  return { pool, schema };
}

/**
 * Serves each of `routes`, `handle(body, headers)` at `POST /{path}` (`GET /{path}` when the key starts
 * with `GET `; 200, its answer as JSON, with `cache-control: no-store` on POST) on PORT, prints {"port": n} once it
 * listens, and on SIGTERM or SIGINT closes, drops the schema (when it made one) and ends the pool.
 * `providers` and `guards` become the module's providers and the controller's guards.
 * @param {Record<string, (body: any, headers: Record<string, string | undefined>) => Promise<unknown>>} routes
 * @param {{ pool: pg.Pool, schema?: string }} database
 * @param {{ providers?: any[], guards?: any[] }} [parts]
 */
export async function serveFloor(routes, database, parts = {}) {
  class FloorController {}
  for (const [n, [route, handle]] of Object.entries(routes).entries()) {
    const get = route.startsWith('GET ');
    const path = get ? route.slice(4) : route;
    const name = `answer${n}`;
    Object.defineProperty(FloorController.prototype, name, {
      value: (/** @type {any} */ body, /** @type {Record<string, string | undefined>} */ headers) =>
        handle(body, headers),
      writable: true,
      configurable: true,
    });
    const method = /** @type {PropertyDescriptor} */ (
      Object.getOwnPropertyDescriptor(FloorController.prototype, name)
    );
    (get ? Get : Post)(path)(FloorController.prototype, name, method);
    HttpCode(200)(FloorController.prototype, name, method);
    if (!get) Header('cache-control', 'no-store')(FloorController.prototype, name, method);
    Body()(FloorController.prototype, name, 0);
    Headers()(FloorController.prototype, name, 1);
  }
  if (parts.guards !== undefined) UseGuards(...parts.guards)(FloorController);
  Controller()(FloorController);
  class FloorModule {}
  Module({ controllers: [FloorController], providers: parts.providers ?? [] })(FloorModule);

  const app = await NestFactory.create(FloorModule, new PresetPrototypesExpressAdapter(), {
    logger: false,
  });
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  express.set('etag', false);
  await app.listen(Number(process.env.PORT ?? '0'), '127.0.0.1');
  let stopping = false;
  const stop = () => {
    // Ctrl-C reaches it as SIGINT and the benchmark's SIGTERM follows: one stop.
    if (stopping) return;
    stopping = true;
    app
      .close()
      .then(() =>
        database.schema === undefined
          ? undefined
          : database.pool.query(`DROP SCHEMA ${database.schema} CASCADE`),
      )
      .then(() => database.pool.end())
      .then(
        () => process.exit(0),
        (error) => {
          console.error(`stack floor: ${String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const address = app.getHttpServer().address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
}
