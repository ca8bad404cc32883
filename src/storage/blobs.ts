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

/** The version a save is writing chunks for, recorded before the first chunk (see saveBlob). */
interface PendingSave {
  version: string;
  chunks: number;
}

const pendingKey = (name: string) => `${name}~pending`;

async function removeChunks(table: KeyValueTable<unknown>, name: string, blob: PendingSave): Promise<void> {
  for (let i = 0; i < blob.chunks; i++) await table.remove(`${name}@${blob.version}#${i}`);
}

/**
 * Large binary values (trained models) in a key-value table: chunks written under a fresh version,
 * then the manifest that points at them, so a reader sees the old blob or the new one, never a mix.
 * The version being written is recorded first, so the chunks of a save that a crash cut short are
 * found and removed by the next save instead of staying in storage for good.
 */
export async function saveBlob(table: KeyValueTable<unknown>, name: string, data: Uint8Array): Promise<string> {
  const previous = (await table.get(name)) as Manifest | undefined;
  const interrupted = (await table.get(pendingKey(name))) as PendingSave | undefined;
  if (interrupted && interrupted.version !== previous?.version) await removeChunks(table, name, interrupted);
  const version = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const chunks = Math.max(1, Math.ceil(data.byteLength / CHUNK_BYTES));
  await table.put(pendingKey(name), { version, chunks } satisfies PendingSave);
  for (let i = 0; i < chunks; i++) {
    await table.put(`${name}@${version}#${i}`, Buffer.from(data.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES)));
  }
  await table.put(name, { version, chunks, bytes: data.byteLength, savedAt: new Date().toISOString() } satisfies Manifest);
  if (previous) await removeChunks(table, name, previous);
  await table.remove(pendingKey(name));
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
