import type { FastifyInstance } from 'fastify';
import { DomainError, invalid } from '../domain/errors.js';
import { firstInexactNumber } from './exactNumbers.js';
import {
  type JsonShapeProblem,
  jsonShapeProblem,
  MAX_JSON_DEPTH,
  MAX_JSON_KEYS,
  MAX_JSON_OBJECT_KEYS,
} from './jsonShape.js';

/**
 * JSON bodies as Fastify parses them (prototype-poisoning safe), except that an empty body is
 * no body: agents' HTTP clients often send `Content-Type: application/json` on body-less
 * requests such as POST /tasks/:id/complete, and that must not be a 400. A number the parse
 * would round (see exactNumbers.ts) is a 400 naming its field. A body nested too deep or with
 * too many keys (in one object or in all) is a 400 before it is parsed, so before the text guard
 * and the schema's validator walk it (see jsonShape.ts).
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const shape = jsonShapeProblem(text);
    if (shape) return done(SHAPE_REFUSALS[shape], undefined);
    return parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const inexact = firstInexactNumber(text);
      if (inexact) {
        return done(
          invalid(
            inexact.path || 'body',
            `the JSON number ${inexact.literal.length > 40 ? `${inexact.literal.slice(0, 40)}...` : inexact.literal} cannot be read exactly (JSON numbers are binary floating point); send amounts as strings such as "1.5", with at most 9 decimals`,
          ),
          undefined,
        );
      }
      return done(null, value);
    });
  });
}

const SHAPE_REFUSALS: Record<JsonShapeProblem, DomainError> = {
  'too deep': new DomainError(
    'validation',
    `JSON body nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects; no request needs more: send a flatter body`,
  ),
  'too wide': new DomainError(
    'validation',
    `JSON body has an object with more than ${MAX_JSON_OBJECT_KEYS} keys; no request needs more: send only the fields the route takes`,
  ),
  'too many keys': new DomainError(
    'validation',
    `JSON body has more than ${MAX_JSON_KEYS} keys in all; no request needs more: send only the fields the route takes, or split a batch`,
  ),
};
