import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { KindredError } from '../errors';
import { errorReply, jsonError } from './error-reply';

/** The admin surfaces' refusals, with their codes. */
export const adminOff = (): KindredError => new KindredError('route_not_found', 'API path not found');
export const adminTokenRequired = (): KindredError => new KindredError('admin_token_required', 'Admin token required', { headers: { 'WWW-Authenticate': 'Bearer' } });

/** Answers an admin refusal in JSON. */
export function refuse(res: Response, error: KindredError): void {
  const reply = errorReply(error, jsonError);
  res.status(reply.status).set(reply.headers).json(reply.body);
}

/**
 * The one guard of the admin surfaces (/metrics, /dashboard): without a configured token they do not exist
 * (404, as an unknown path); a request without the right `Authorization: Bearer <token>` gets 401.
 */
export class AdminGuard {
  constructor(private readonly token: string | undefined) {}

  /** Answers 404 when the admin surfaces are off; true when they are on. */
  exists(res: Response): boolean {
    if (this.token) return true;
    refuse(res, adminOff());
    return false;
  }

  /** Constant-time comparison of the bearer token with the admin token. */
  authorised(req: Request): boolean {
    if (!this.token) return false;
    const header = req.headers.authorization;
    const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Answers 404 or 401 unless the request may go on. */
  admits(req: Request, res: Response): boolean {
    if (!this.exists(res)) return false;
    if (this.authorised(req)) return true;
    refuse(res, adminTokenRequired());
    return false;
  }
}
