import { Controller, Get, Redirect } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';

/**
 * `GET /` leads a person who opened the origin in a browser to the API explorer. Like the explorer
 * itself it is no part of the API, so the OpenAPI document leaves it out.
 */
@ApiExcludeController()
@Controller()
export class HomeController {
  @Get()
  @Public()
  @Redirect('/ctrl/swagger-ui/', 302)
  home(): void {}
}
