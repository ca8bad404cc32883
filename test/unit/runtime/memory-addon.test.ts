import { strict as assert } from 'node:assert';
import { tuneAllocator } from '../../../src/runtime/memory-addon';

describe('malloc tuning (native/build/memory.node)', () => {
  it('is built and accepted by glibc', () => {
    assert.equal(tuneAllocator(), true);
  });
});
