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

export type IdKind = keyof typeof RESERVED;

/** How an id a client gives is checked: the spec's rule (v2 onward) or v1's client strings. */
export type IdRule = (kind: IdKind, id: string) => string;

/**
 * v1's `document_id` is any client string (the original's corpora used ids such as
 * `arxiv-http://arxiv.org/abs/1403.2165`), up to this many UTF-8 bytes: with the tenant and table
 * it must fit one LMDB key (1,978 bytes) and the reverse keys of pair tables.
 */
export const MAX_CLIENT_STRING_ID_BYTES = 1024;

export const clientStringId: IdRule = (_kind, id) => {
  if (id.length === 0 || Buffer.byteLength(id) > MAX_CLIENT_STRING_ID_BYTES) throw invalidId();
  return id;
};

/** v2's ids (and cluster models' everywhere): positive integers of at most 16 digits, as strings. */
export const isNumberedId = (id: string): boolean => /^[1-9][0-9]{0,15}$/.test(id);

export function isValidId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

/** The spec's rule: letters, digits, `-`, `_`, at most 255 characters, not a reserved path segment. */
export const checkId: IdRule = (kind, id) => {
  if (!isValidId(id) || RESERVED[kind].has(id)) throw invalidId();
  return id;
};

/** v2's rule: an id it can address is a number (numbered ids also pass the spec's rule). */
const numberedId: IdRule = (_kind, id) => {
  if (!isNumberedId(id)) throw invalidId();
  return id;
};

/**
 * Which ids a version addresses, as data a request carries: the spec's rule (v3–v6), v2's numbers (it can
 * neither name nor show any other document) or v1's client strings.
 */
export type IdScope = 'spec' | 'numbered' | 'client-string';

interface ScopeRules {
  /** Checks an id the client gives. */
  check: IdRule;
  /** Whether a document of that id may appear in an answer; absent when every one may. */
  shows?: (id: string) => boolean;
}

const SCOPES: Readonly<Record<IdScope, ScopeRules>> = {
  spec: { check: checkId },
  numbered: { check: numberedId, shows: isNumberedId },
  'client-string': { check: clientStringId },
};

export const scopeRules = (scope: IdScope = 'spec'): ScopeRules => SCOPES[scope];

/** 24 lowercase hex characters, like a MongoDB ObjectId: 96 random bits. */
export function generateId(): string {
  return randomBytes(12).toString('hex');
}
