import { type Request } from 'express';

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  match(path: string): unknown;
}

/**
 * The methods that the Express router serves on the request's path, so that an unsupported method gets
 * 405 with `Allow` instead of a misleading 404. Empty when no route has this path.
 */
export function allowedMethodsFor(request: Request): string[] {
  const router = (request.app as unknown as { router?: { stack?: RouterLayer[] } }).router;
  const methods = new Set<string>();
  for (const layer of router?.stack ?? []) {
    // Catch-all layers (middleware such as request logging) say nothing about what a path serves.
    if (layer.route === undefined || String(layer.route.path).includes('*')) continue;
    if (!layer.match(request.path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  methods.delete(request.method.toUpperCase());
  return methods.size === 0 ? [] : [...methods].sort();
}
