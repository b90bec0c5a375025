import { requestLimits } from '../requests/request-limits.js';
import { refusalEnding, tooManyRefusedAnswers } from './refused-answers.js';

describe(refusalEnding.name, () => {
  it('only counts the refusals below the bound', () => {
    for (let count = 1; count < requestLimits.refusedAnswers; count++)
      expect(refusalEnding(count, 'another nonce')).toBeUndefined();
  });

  it('ends the request at the bound, saying so and quoting the last refusal', () => {
    expect(refusalEnding(requestLimits.refusedAnswers, 'another nonce')).toEqual({
      code: tooManyRefusedAnswers,
      reason: `${requestLimits.refusedAnswers} answers were refused as not bound to this request (the last: another nonce)`,
    });
  });

  it('ends it past the bound too, and follows a bound it is given', () => {
    expect(refusalEnding(3, 'garbage', 3)?.code).toBe(tooManyRefusedAnswers);
    expect(refusalEnding(4, 'garbage', 3)?.code).toBe(tooManyRefusedAnswers);
    expect(refusalEnding(2, 'garbage', 3)).toBeUndefined();
  });

  it('keeps the documented bound', () => {
    expect(requestLimits.refusedAnswers).toBe(10);
  });
});
