import { type NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from './common/openapi.js';
import { swaggerUiHooks, tenantPickerScript } from './common/swagger-tenant-picker.js';
import { type Request, type Response, type NextFunction } from 'express';
import { formBodyMiddleware, hostRequired } from './common/http-body.js';
import { ProblemDetailsFilter } from './common/problem/problem-details.filter.js';
import { RouteTable } from './common/problem/route-table.js';
import { RequestValidationPipe } from './common/validation.js';
import { type Settings } from './config/settings.js';

/** Everything about the HTTP surface that is not a controller: used by main and by the tests alike. */
export function configureApp(app: NestExpressApplication, settings: Settings): void {
  app.disable('x-powered-by');
  // No ETag on answers: Express would hash every body, and no client of this API revalidates.
  app.set('etag', false);
  // The client's address (request.ip) comes from X-Forwarded-For only when a configured proxy sent it;
  // the public origin never comes from a header (PUBLIC_BASE_URL).
  app.set('trust proxy', settings.TRUST_PROXY.length === 0 ? false : settings.TRUST_PROXY);
  app.use(hostRequired(settings.PUBLIC_BASE_URL));
  app.use('/auth', ...formBodyMiddleware(settings.PUBLIC_BASE_URL));
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalFilters(new ProblemDetailsFilter(settings.PUBLIC_BASE_URL, app.get(RouteTable)));
  app.use((_request: Request, response: Response, next: NextFunction) => {
    response.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });

  // The API explorer keeps tokens in localStorage: no other site may frame it.
  app.use('/ctrl/swagger-ui', (_request: Request, response: Response, next: NextFunction) => {
    response.setHeader('X-Frame-Options', 'DENY');
    response.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    next();
  });
  // Lissi Agent's interface fixes /ctrl/swagger-ui/ with its trailing slash; /ctrl/swagger-ui redirects there.
  app.use('/ctrl/swagger-ui', (request: Request, response: Response, next: NextFunction) => {
    const [path, query] = request.originalUrl.split(/\?(.*)/s, 2);
    if (path === '/ctrl/swagger-ui') {
      response.redirect(
        301,
        `/ctrl/swagger-ui/${query === undefined || query === '' ? '' : `?${query}`}`,
      );
      return;
    }
    next();
  });
  for (const path of ['ctrl/v3/api-docs', 'ctrl/v3/api-docs.yaml'])
    app.get(RouteTable).add('GET', path);
  // Built at its first request, not at start: a start (and each test's) skips scanning every route.
  SwaggerModule.setup('ctrl/swagger-ui', app, () => buildOpenApiDocument(app, settings), {
    jsonDocumentUrl: 'ctrl/v3/api-docs',
    yamlDocumentUrl: 'ctrl/v3/api-docs.yaml',
    customSiteTitle: 'Agent service API',
    customJsStr: tenantPickerScript,
    swaggerOptions: {
      // Authorize with client_id agent-client, no secret; PKCE as Keycloak requires.
      initOAuth: {
        clientId: 'agent-client',
        usePkceWithAuthorizationCodeGrant: true,
        scopes: ['openid'],
      },
      oauth2RedirectUrl: `${settings.PUBLIC_BASE_URL}/ctrl/swagger-ui/oauth2-redirect.html`,
      persistAuthorization: true,
      displayRequestDuration: true,
      tryItOutEnabled: true,
      ...swaggerUiHooks,
    },
  });
}
