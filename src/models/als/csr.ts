/** Compressed sparse rows: row r's columns are indices[indptr[r] .. indptr[r+1]), with values in data. */
export interface Csr {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  data: Float32Array;
}

/** (row, col, value) triplets; a repeated (row, col) pair adds its values. */
export interface Triplets {
  rows: Int32Array;
  cols: Int32Array;
  values: Float32Array;
}

function allocInt32(length: number, shared: boolean): Int32Array {
  return shared ? new Int32Array(new SharedArrayBuffer(length * 4)) : new Int32Array(length);
}

function allocFloat32(length: number, shared: boolean): Float32Array {
  return shared ? new Float32Array(new SharedArrayBuffer(length * 4)) : new Float32Array(length);
}

/** Builds a CSR matrix with sorted, de-duplicated columns per row (duplicates summed). Two counting sorts: O(nnz). */
export function buildCsr(t: Triplets, nRows: number, nCols: number, shared = false): Csr {
  const n = t.rows.length;
  // Pass 1: order entries by column.
  const colStart = new Int32Array(nCols + 1);
  for (let e = 0; e < n; e++) {
    const c = t.cols[e];
    if (c < 0 || c >= nCols) throw new RangeError(`column ${c} out of range`);
    const r = t.rows[e];
    if (r < 0 || r >= nRows) throw new RangeError(`row ${r} out of range`);
    colStart[c + 1]++;
  }
  for (let c = 0; c < nCols; c++) colStart[c + 1] += colStart[c];
  const byCol = new Int32Array(n);
  for (let e = 0; e < n; e++) byCol[colStart[t.cols[e]]++] = e;
  // Pass 2: stable scatter by row keeps columns sorted within each row.
  const rowStart = new Int32Array(nRows + 1);
  for (let e = 0; e < n; e++) rowStart[t.rows[e] + 1]++;
  for (let r = 0; r < nRows; r++) rowStart[r + 1] += rowStart[r];
  const fill = rowStart.slice(0, nRows);
  const order = new Int32Array(n);
  for (let q = 0; q < n; q++) {
    const e = byCol[q];
    order[fill[t.rows[e]]++] = e;
  }
  const indptr = allocInt32(nRows + 1, shared);
  const tmpIdx = new Int32Array(n);
  const tmpVal = new Float32Array(n);
  let out = 0;
  for (let r = 0; r < nRows; r++) {
    indptr[r] = out;
    let last = -1;
    for (let q = rowStart[r]; q < rowStart[r + 1]; q++) {
      const e = order[q];
      const c = t.cols[e];
      if (c === last) {
        tmpVal[out - 1] += t.values[e];
      } else {
        tmpIdx[out] = c;
        tmpVal[out] = t.values[e];
        out++;
        last = c;
      }
    }
  }
  indptr[nRows] = out;
  const indices = allocInt32(out, shared);
  const data = allocFloat32(out, shared);
  indices.set(tmpIdx.subarray(0, out));
  data.set(tmpVal.subarray(0, out));
  return { rows: nRows, cols: nCols, indptr, indices, data };
}

/** The transpose, also in CSR form (i.e. the CSC view of `m`), columns sorted. */
export function transposeCsr(m: Csr, shared = false): Csr {
  const nnz = m.indptr[m.rows];
  const indptr = allocInt32(m.cols + 1, shared);
  for (let e = 0; e < nnz; e++) indptr[m.indices[e] + 1]++;
  for (let c = 0; c < m.cols; c++) indptr[c + 1] += indptr[c];
  const fill = indptr.slice(0, m.cols);
  const indices = allocInt32(nnz, shared);
  const data = allocFloat32(nnz, shared);
  for (let r = 0; r < m.rows; r++) {
    for (let e = m.indptr[r]; e < m.indptr[r + 1]; e++) {
      const pos = fill[m.indices[e]]++;
      indices[pos] = r;
      data[pos] = m.data[e];
    }
  }
  return { rows: m.cols, cols: m.rows, indptr, indices, data };
}

export function nnz(m: Csr): number {
  return m.indptr[m.rows];
}

/** Copies a CSR into SharedArrayBuffers so worker threads can read it without copies. */
export function shareCsr(m: Csr): Csr {
  const indptr = allocInt32(m.indptr.length, true);
  indptr.set(m.indptr);
  const indices = allocInt32(m.indices.length, true);
  indices.set(m.indices);
  const data = allocFloat32(m.data.length, true);
  data.set(m.data);
  return { rows: m.rows, cols: m.cols, indptr, indices, data };
}
