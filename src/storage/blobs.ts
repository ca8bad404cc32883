import { randomBytes } from 'node:crypto';
import type { KeyValueTable } from './types';

/** Chunks stay well under MongoDB's 16 MB document limit. */
const CHUNK_BYTES = 8 * 1024 * 1024;

interface Manifest {
  version: string;
  chunks: number;
  bytes: number;
  savedAt: string;
}

/**
 * Large binary values (trained models) in a key-value table: chunks written under a fresh version,
 * then the manifest that points at them, so a reader sees the old blob or the new one, never a mix.
 */
export async function saveBlob(table: KeyValueTable<unknown>, name: string, data: Uint8Array): Promise<string> {
  const previous = (await table.get(name)) as Manifest | undefined;
  const version = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const chunks = Math.max(1, Math.ceil(data.byteLength / CHUNK_BYTES));
  for (let i = 0; i < chunks; i++) {
    await table.put(`${name}@${version}#${i}`, Buffer.from(data.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES)));
  }
  await table.put(name, { version, chunks, bytes: data.byteLength, savedAt: new Date().toISOString() } satisfies Manifest);
  if (previous) for (let i = 0; i < previous.chunks; i++) await table.remove(`${name}@${previous.version}#${i}`);
  return version;
}

export async function blobVersion(table: KeyValueTable<unknown>, name: string): Promise<string | undefined> {
  return ((await table.get(name)) as Manifest | undefined)?.version;
}

export async function loadBlob(table: KeyValueTable<unknown>, name: string): Promise<{ version: string; data: Buffer } | undefined> {
  const manifest = (await table.get(name)) as Manifest | undefined;
  if (!manifest) return undefined;
  const parts: Buffer[] = [];
  for (let i = 0; i < manifest.chunks; i++) {
    const chunk = await table.get(`${name}@${manifest.version}#${i}`);
    if (chunk === undefined) return undefined;
    parts.push(Buffer.from(chunk as Uint8Array));
  }
  return { version: manifest.version, data: Buffer.concat(parts, manifest.bytes) };
}
