import { Injectable, RequestMethod, type OnApplicationBootstrap } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

interface Route {
  pattern: RegExp;
  method: string;
}

/** `ctrl/api/v1.0/tenants/:id` as a pattern over request paths: a parameter is one path segment. */
function patternOf(...parts: string[]): RegExp {
  const path = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^/${path}/?$`);
}

/** Nest keeps one path as a string and several (`@Get(['a', 'b'])`) as an array. */
function asArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((path): path is string => typeof path === 'string');
  return [typeof value === 'string' ? value : ''];
}

/**
 * Every route the controllers declare, read from Nest's route metadata once at boot, so that a request
 * with a method a path does not serve gets 405 with `Allow` instead of a misleading 404.
 */
@Injectable()
export class RouteTable implements OnApplicationBootstrap {
  private routes: Route[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onApplicationBootstrap(): void {
    this.routes = [...this.routes, ...this.controllerRoutes()];
  }

  private controllerRoutes(): Route[] {
    return this.discovery.getControllers().flatMap((wrapper) => {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (controller === null || typeof controller !== 'function') return [];
      const prefixes = asArray(Reflect.getMetadata(PATH_METADATA, controller));
      const prototype = controller.prototype as Record<string, unknown>;
      return this.scanner.getAllMethodNames(prototype).flatMap((name) => {
        const handler = prototype[name] as object;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined || method === RequestMethod.ALL) return [];
        const paths = asArray(Reflect.getMetadata(PATH_METADATA, handler));
        return prefixes.flatMap((prefix) =>
          paths.map((path) => ({
            pattern: patternOf(prefix, path),
            method: RequestMethod[method],
          })),
        );
      });
    });
  }

  /** A route served outside the controllers (the OpenAPI documents of the API explorer). */
  add(method: 'GET' | 'POST', path: string): void {
    this.routes.push({ pattern: patternOf(path), method });
  }

  /** The methods served on `path` other than `method`; empty when no route has this path. */
  allowedMethods(path: string, method: string): string[] {
    const methods = new Set(
      this.routes.filter((route) => route.pattern.test(path)).map((route) => route.method),
    );
    if (methods.has('GET')) methods.add('HEAD');
    methods.delete(method.toUpperCase());
    return [...methods].sort();
  }
}
