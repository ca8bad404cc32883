import { strict as assert } from 'node:assert';
import { tuneAllocator } from '../../../src/ops/allocator';

describe('malloc tuning (native/build/allocator.node)', () => {
  it('is built and accepted by glibc', () => {
    assert.equal(tuneAllocator(), true);
  });
});
