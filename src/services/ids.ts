import { randomBytes } from 'node:crypto';
import { invalidId } from '../errors';

export const MAX_ID_LENGTH = 255;
const ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Path segments that name operations, so they can never be ids of that kind. */
const RESERVED: Record<'document' | 'tag' | 'user', ReadonlySet<string>> = {
  document: new Set(['ids', 'by-keyword', 'filtered', 'popular', 'similar-to-ids', 'similar-to-text']),
  tag: new Set(['recommend-by-text']),
  user: new Set(),
};

export function isValidId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

export function checkId(kind: keyof typeof RESERVED, id: string): string {
  if (!isValidId(id) || RESERVED[kind].has(id)) throw invalidId();
  return id;
}

/** 24 lowercase hex characters, like a MongoDB ObjectId: 96 random bits. */
export function generateId(): string {
  return randomBytes(12).toString('hex');
}
