import fs from 'node:fs';

/**
 * A file's bytes, read by as few requests as the kernel allows: `fs.promises.readFile` reads 512 KiB per event
 * loop turn, so a 100 MB snapshot read while the loop is busy restoring another index arrived seconds late
 * (restart profile, 82k documents: the keyword worker waited 3 s for its snapshot).
 */
export async function readWholeFile(file: string): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    let got = 0;
    while (got < size) {
      const { bytesRead } = await fh.read(bytes, got, size - got, got);
      if (bytesRead === 0) throw new Error(`${file}: shorter than its size`);
      got += bytesRead;
    }
    return bytes;
  } finally {
    await fh.close();
  }
}
