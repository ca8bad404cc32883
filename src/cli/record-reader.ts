import fs from 'node:fs';
import zlib from 'node:zlib';

export type FileFormat = 'jsonl' | 'csv';

/** One record of an input file: its fields (or why it could not be read), line number and end offset. */
export interface SourceRecord {
  fields?: Record<string, unknown>;
  error?: string;
  /** 1-based line where the record starts. */
  line: number;
  /** Line where it ends (CSV records may span lines). */
  lastLine: number;
  /** Byte offset just past the record (in the decompressed stream for .gz files). */
  end: number;
}

export interface ReadPosition {
  offset: number;
  /** Line number of the record starting at `offset` minus one (lines already consumed). */
  line: number;
}

const isGzip = (file: string) => file.toLowerCase().endsWith('.gz');

/** By extension (.jsonl/.ndjson/.json, .csv, optionally .gz), else by the first character: `{` is JSONL. */
export function detectFormat(file: string, firstBytes: string): FileFormat {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (/\.(jsonl|ndjson|json)$/.test(name)) return 'jsonl';
  if (name.endsWith('.csv')) return 'csv';
  return firstBytes.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

/** The first `n` bytes of the (decompressed) file. */
export async function peek(file: string, n = 4096): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const input = fs.createReadStream(file, isGzip(file) ? {} : { end: n - 1 });
  const stream = isGzip(file) ? input.pipe(zlib.createGunzip()) : input;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= n) break;
  }
  input.destroy();
  return Buffer.concat(chunks).subarray(0, n).toString('utf8');
}

/** Splits one CSV record (RFC 4180: quoted fields, doubled quotes, newlines inside quotes; leniently, a quote inside an unquoted cell is kept as is). */
export function parseCsvRecord(text: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true; // a quote inside an unquoted cell is a plain character
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

const quoteCount = (buf: Buffer): number => {
  let n = 0;
  for (let at = buf.indexOf(34); at >= 0; at = buf.indexOf(34, at + 1)) n++;
  return n;
};

/** Raw records with their byte ranges: lines, or for CSV lines joined while a quote is open. */
async function* rawRecords(file: string, format: FileFormat, from: ReadPosition, onBytes: (compressedBytes: number) => void): AsyncGenerator<{ bytes: Buffer; line: number; lines: number; end: number }> {
  const gz = isGzip(file);
  const input = fs.createReadStream(file, gz || from.offset === 0 ? {} : { start: from.offset });
  let compressed = gz ? 0 : from.offset;
  input.on('data', (chunk) => {
    compressed += chunk.length;
    onBytes(compressed);
  });
  const stream = gz ? input.pipe(zlib.createGunzip()) : input;
  // In a .gz file the bytes before the resume offset are decompressed and dropped.
  let skip = gz ? from.offset : 0;
  let offset = from.offset;
  let line = from.line;
  let pending: Buffer[] = [];
  let pendingQuotes = 0;
  let pendingLines = 0;
  let rest = Buffer.alloc(0);
  const flush = function* (piece: Buffer, force = false) {
    if (piece.length) {
      pending.push(piece);
      pendingLines++;
      if (format === 'csv') pendingQuotes += quoteCount(piece);
    }
    if (pending.length === 0 || (format === 'csv' && pendingQuotes % 2 === 1 && !force)) return;
    const bytes = Buffer.concat(pending);
    const startLine = line + 1;
    line += pendingLines;
    offset += bytes.length;
    pending = [];
    pendingQuotes = 0;
    pendingLines = 0;
    yield { bytes, line: startLine, lines: line, end: offset };
  };
  try {
    for await (let chunk of stream as AsyncIterable<Buffer>) {
      if (skip > 0) {
        if (chunk.length <= skip) {
          skip -= chunk.length;
          continue;
        }
        chunk = chunk.subarray(skip);
        skip = 0;
      }
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
        yield* flush(buf.subarray(start, nl + 1));
        start = nl + 1;
      }
      rest = Buffer.from(buf.subarray(start));
      buf = rest;
    }
    // At the end a CSV record with an unclosed quote is yielded as is (and fails to parse as a record).
    yield* flush(rest, true);
  } finally {
    input.destroy();
  }
}

function decode(bytes: Buffer, first: boolean): string {
  let text = bytes.toString('utf8');
  if (first) text = text.replace(/^\uFEFF/, '');
  return text.replace(/\r?\n$/, '');
}

/** The CSV header (column names) of a file: its first record. */
async function csvHeader(file: string): Promise<{ columns: string[]; end: number } | undefined> {
  for await (const raw of rawRecords(file, 'csv', { offset: 0, line: 0 }, () => undefined)) {
    const text = decode(raw.bytes, true);
    if (text.trim() === '') continue;
    return { columns: parseCsvRecord(text).map((c) => c.trim()), end: raw.end };
  }
  return undefined;
}

/**
 * The records of a JSONL or CSV file (optionally gzipped) from a position on: blank lines are skipped,
 * CSV cells become strings keyed by the header (empty cells are left out). `onBytes` reports how far into
 * the file on disk reading has got, for progress.
 */
export async function* readRecords(file: string, format: FileFormat, from: ReadPosition = { offset: 0, line: 0 }, onBytes: (bytes: number) => void = () => undefined): AsyncGenerator<SourceRecord> {
  let columns: string[] | undefined;
  let position = from;
  if (format === 'csv') {
    const header = await csvHeader(file);
    if (!header) return;
    columns = header.columns;
    if (position.offset < header.end) position = { offset: header.end, line: 1 };
  }
  for await (const raw of rawRecords(file, format, position, onBytes)) {
    const text = decode(raw.bytes, raw.line === 1);
    if (text.trim() === '') continue;
    const record: SourceRecord = { line: raw.line, lastLine: raw.lines, end: raw.end };
    if (format === 'jsonl') {
      try {
        const value: unknown = JSON.parse(text);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) record.fields = value as Record<string, unknown>;
        else record.error = 'not a JSON object';
      } catch {
        record.error = 'not valid JSON';
      }
    } else {
      const cells = parseCsvRecord(text);
      if (cells.length !== columns!.length) record.error = `${cells.length} cells where the header has ${columns!.length}`;
      else {
        const fields: Record<string, unknown> = {};
        columns!.forEach((name, i) => {
          if (cells[i] !== '') fields[name] = cells[i];
        });
        record.fields = fields;
      }
    }
    yield record;
  }
}

/** Size of the file on disk (the progress total). */
export const fileSize = (file: string): number => fs.statSync(file).size;
