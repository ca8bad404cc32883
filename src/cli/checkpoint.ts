import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ReadPosition } from './record-reader';

/** Where an interrupted import stands: the end of the last batch the server acknowledged, and the counts so far. */
export interface Checkpoint extends ReadPosition {
  version: 1;
  file: string;
  /** Hash of server URL and key: a checkpoint never carries over to another server or key. */
  target: string;
  type: string;
  imported: number;
  skipped: number;
  failed: number;
  updated_at: string;
}

export const targetOf = (url: string, key: string): string => createHash('sha256').update(`${url}\n${key}`).digest('hex').slice(0, 16);

/** `<input>.<target>.kindred-import.json`, next to the input or in the --state directory. */
export function checkpointPath(file: string, target: string, stateDir?: string): string {
  return path.join(stateDir ?? path.dirname(path.resolve(file)), `${path.basename(file)}.${target}.kindred-import.json`);
}

/** The saved checkpoint when it belongs to this file, target and type and still fits the file; else undefined. */
export function loadCheckpoint(at: string, file: string, target: string, type: string): Checkpoint | undefined {
  let saved: Partial<Checkpoint>;
  try {
    saved = JSON.parse(fs.readFileSync(at, 'utf8')) as Partial<Checkpoint>;
  } catch {
    return undefined;
  }
  if (saved.version !== 1 || saved.file !== path.resolve(file) || saved.target !== target || saved.type !== type) return undefined;
  if (typeof saved.offset !== 'number' || typeof saved.line !== 'number' || saved.offset < 0) return undefined;
  if (!file.toLowerCase().endsWith('.gz') && saved.offset > fs.statSync(file).size) return undefined;
  return saved as Checkpoint;
}

/** Written to a temporary file and renamed, so a kill mid-write leaves the previous checkpoint intact. */
export function saveCheckpoint(at: string, checkpoint: Checkpoint): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  const tmp = `${at}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(checkpoint));
  fs.renameSync(tmp, at);
}

export function removeCheckpoint(at: string): void {
  fs.rmSync(at, { force: true });
}
