import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/random';
import { randomizedSvd, symmetricEigen, type CsrMatrix } from '../../../src/embedding/svd';

function randomSparse(rows: number, cols: number, density: number, seed: number): { csr: CsrMatrix; dense: Float64Array } {
  const rand = seededRandom(seed);
  const dense = new Float64Array(rows * cols);
  const rowStart = new Uint32Array(rows + 1);
  const colIndex: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      if (rand() < density) {
        const v = Math.fround(rand() - 0.3);
        dense[i * cols + j] = v;
        colIndex.push(j);
        values.push(v);
      }
    }
    rowStart[i + 1] = colIndex.length;
  }
  return { csr: { rows, cols, rowStart, colIndex: Uint32Array.from(colIndex), values: Float32Array.from(values) }, dense };
}

describe('embedding/svd', () => {
  it('symmetricEigen diagonalises a symmetric matrix', () => {
    const a = Float64Array.from([4, 1, 2, 1, 3, 0, 2, 0, 5]);
    const { values, vectors } = symmetricEigen(a, 3);
    for (let e = 0; e < 3; e++) {
      for (let r = 0; r < 3; r++) {
        let av = 0;
        for (let c = 0; c < 3; c++) av += a[r * 3 + c]! * vectors[c * 3 + e]!;
        assert.ok(Math.abs(av - values[e]! * vectors[r * 3 + e]!) < 1e-9);
      }
    }
    assert.ok(Math.abs(values.reduce((s, v) => s + v, 0) - 12) < 1e-9, 'trace preserved');
  });

  it('randomizedSvd finds the exact top singular values and orthonormal right vectors of a small matrix', () => {
    const rows = 60;
    const cols = 40;
    const { csr, dense } = randomSparse(rows, cols, 0.3, 3);
    // reference: eigenvalues of AᵀA
    const ata = new Float64Array(cols * cols);
    for (let i = 0; i < rows; i++)
      for (let p = 0; p < cols; p++) for (let q = 0; q < cols; q++) ata[p * cols + q]! += dense[i * cols + p]! * dense[i * cols + q]!;
    const exact = Array.from(symmetricEigen(ata, cols).values).map((v) => Math.sqrt(Math.max(v, 0))).sort((x, y) => y - x);
    const k = 5;
    const svd = randomizedSvd(csr, k, { oversample: 20, powerIterations: 3, seed: 11 });
    for (let j = 0; j < k; j++) assert.ok(Math.abs(svd.singularValues[j]! - exact[j]!) < 1e-4 * exact[0]!, `σ${j}: ${svd.singularValues[j]} vs ${exact[j]}`);
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) {
        let dot = 0;
        for (let t = 0; t < cols; t++) dot += svd.rightVectors[t * k + a]! * svd.rightVectors[t * k + b]!;
        assert.ok(Math.abs(dot - (a === b ? 1 : 0)) < 1e-6, `VᵀV[${a},${b}] = ${dot}`);
      }
    }
  });

  it('caps the rank at the matrix size', () => {
    const { csr } = randomSparse(6, 30, 0.5, 5);
    const svd = randomizedSvd(csr, 16);
    assert.equal(svd.k, 6);
    assert.equal(svd.singularValues.length, 6);
  });
});
