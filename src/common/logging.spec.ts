import { Logger } from '@nestjs/common';
import { AppLogger, createRootLogger } from './logging.js';

describe('AppLogger', () => {
  function capture() {
    const lines: Record<string, unknown>[] = [];
    const logger = new AppLogger(
      createRootLogger('trace', {
        write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
      }),
    );
    return { lines, logger };
  }

  it('logs an error object handed over by Nest with its message, stack and the caller context', () => {
    const { lines, logger } = capture();
    const failure = Object.assign(new Error('Nest can not resolve dependencies of KeyVault'), {
      context: 'a field of the error itself',
    });
    logger.error(failure, undefined, 'ExceptionHandler');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      context: 'ExceptionHandler',
      msg: 'Nest can not resolve dependencies of KeyVault',
      err: { message: 'Nest can not resolve dependencies of KeyVault' },
    });
    expect((lines[0]?.err as { stack: string }).stack).toContain('logging.spec');
  });

  it('logs errors passed at other levels the same way', () => {
    const { lines, logger } = capture();
    logger.warn(new Error('slow issuer'), 'RealmSigningKeys');
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: 'slow issuer',
      context: 'RealmSigningKeys',
    });
  });

  it('keeps the fields of an object message and the stack passed beside a text message', () => {
    const { lines, logger } = capture();
    logger.log({ msg: 'created', reqId: 'r-1' }, 'Tenants');
    logger.error('failed', 'Error: failed\n    at somewhere', 'Tenants');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', msg: 'created', reqId: 'r-1', context: 'Tenants' }),
      expect.objectContaining({
        level: 'error',
        msg: 'failed',
        stack: 'Error: failed\n    at somewhere',
      }),
    ]);
  });

  it('serves Nest Logger instances once installed as the application logger', () => {
    const { lines, logger } = capture();
    Logger.overrideLogger(logger);
    try {
      new Logger('ExceptionHandler').error(new Error('boom'));
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines[0]).toMatchObject({ context: 'ExceptionHandler', msg: 'boom' });
  });
});
