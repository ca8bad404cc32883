import { createHash, randomBytes } from 'node:crypto';
import { now, type ApiKeyRecord } from '../domain';
import type { Storage } from '../storage';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newKey(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Stores a key (only its hash) for a new tenant. Idempotent: a key that exists keeps its tenant,
 * and a revoked key stays revoked.
 */
export async function registerKey(storage: Storage, key: string, name = ''): Promise<ApiKeyRecord> {
  const hash = hashKey(key);
  const existing = await storage.keys.get(hash);
  if (existing) return existing;
  const record: ApiKeyRecord = { hash, tenant: hash.slice(0, 32), name, created_at: now(), revoked_at: null };
  await storage.keys.put(record);
  return record;
}

export async function revokeKey(storage: Storage, key: string): Promise<ApiKeyRecord | undefined> {
  const existing = await storage.keys.get(hashKey(key));
  if (!existing || existing.revoked_at) return existing;
  const revoked = { ...existing, revoked_at: now() };
  await storage.keys.put(revoked);
  return revoked;
}

const CACHE_MS = 5_000;

/**
 * Key → tenant, cached for a few seconds so a request costs a map lookup.
 * Keys created or revoked by the CLI in another process take effect within CACHE_MS.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { tenant: string | null; until: number }>();

  constructor(private readonly storage: Storage) {}

  async tenantOf(key: string): Promise<string | null> {
    // Cached by the key as sent: hashing it was a fiftieth of a request's main-thread time.
    const cached = this.cache.get(key);
    const at = Date.now();
    if (cached && cached.until > at) return cached.tenant;
    const record = await this.storage.keys.get(hashKey(key));
    const tenant = record && !record.revoked_at ? record.tenant : null;
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(key, { tenant, until: at + CACHE_MS });
    return tenant;
  }
}
