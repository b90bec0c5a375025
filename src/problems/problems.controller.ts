import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { codeFromSlug, errorCatalog, type ErrorCode } from '../common/problem/error-codes.js';

/** Makes each problem `type` URI dereferenceable: it answers with what the problem means. */
@ApiExcludeController()
@Controller('ctrl/problems')
export class ProblemsController {
  @Get()
  @Public()
  list(): { code: ErrorCode; status: number; title: string }[] {
    return Object.entries(errorCatalog).map(([code, entry]) => ({
      code: code as ErrorCode,
      ...entry,
    }));
  }

  @Get(':slug')
  @Public()
  describe(@Param('slug') slug: string): { code: ErrorCode; status: number; title: string } {
    const code = codeFromSlug(slug);
    if (code === undefined) {
      throw new DomainException('PROBLEM_TYPE_NOT_FOUND', `No problem type '${slug}'.`);
    }
    return { code, ...errorCatalog[code] };
  }
}
