import assert from 'node:assert/strict';
import { isPublicAddress, parseIpv6 } from '../../../src/parser/address';

describe('parser: address policy', () => {
  const refused = [
    '127.0.0.1', '127.255.0.9', '10.0.0.5', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '100.127.255.254',
    '169.254.169.254', '0.0.0.0', '255.255.255.255', '224.0.0.1', '239.1.2.3', '240.0.0.1',
    '::', '::1', 'fd00::1', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', 'fec0::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.1.2.3', '::ffff:192.168.0.1', '::127.0.0.1', '::ffff:0:127.0.0.1',
    '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '2002:7f00:1::1', '2002:c0a8:101::', '[::1]', 'not an ip', '',
  ];
  const allowed = ['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808'];

  for (const address of refused) it(`refuses ${JSON.stringify(address)}`, () => assert.equal(isPublicAddress(address), false));
  for (const address of allowed) it(`allows ${address}`, () => assert.equal(isPublicAddress(address), true));

  it('expands IPv6 forms into eight groups', () => {
    assert.deepEqual(parseIpv6('::ffff:127.0.0.1'), [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    assert.deepEqual(parseIpv6('fd00::1'), [0xfd00, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(parseIpv6('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(parseIpv6('1.2.3.4'), null);
  });
});
