import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../platform/crypto.js';
import { IvoryError } from '../platform/errors.js';

/**
 * The operator API's one credential (issue 9/10: `Authorization: Bearer
 * <ADMIN_TOKEN>`). Without ADMIN_TOKEN configured the whole API does not
 * exist (404, as for any unknown path); a missing or wrong token is 401.
 * Compared in constant time.
 */
export function requireOperator(adminToken: string | undefined, request: FastifyRequest): void {
  if (adminToken === undefined) throw new IvoryError('not_found');
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer (.+)$/.exec(header);
  if (match === null || match[1] === undefined || !constantTimeEqual(match[1], adminToken)) throw new IvoryError('unauthorized');
}
