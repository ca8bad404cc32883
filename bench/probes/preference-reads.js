// Session probe (issue 29, twelfth session): a user's preferences read as records (listByFirst) against their keys
// alone (secondsOf), on a copy of a kept bench:throughput data directory (never the original: lmdb may write).
//   node bench/probes/preference-reads.js <copy of the data directory> [subscription key]
const crypto = require('crypto');
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { openStorage, ALL } = require(path.join(ROOT, 'dist/src/storage'));
(async () => {
  const [dataDir, key = 'bench-throughput'] = process.argv.slice(2);
  const storage = await openStorage({ dataDir, mongodbUri: undefined });
  // A key's tenant as the key store names it (`kindred keys list`).
  const tenant = storage.tenant(crypto.createHash('sha256').update(key).digest('hex').slice(0, 32));
  const N = 20000;
  const time = async (read) => {
    const t0 = process.hrtime.bigint();
    let n = 0;
    for (let i = 0; i < N; i++) n += (await read(`u${i % 200}`)).length;
    return { us: Number(process.hrtime.bigint() - t0) / 1e3 / N, each: n / N };
  };
  for (let round = 0; round < 3; round++) {
    const records = await time((u) => tenant.preferences.listByFirst(u, ALL));
    const keys = await time((u) => tenant.preferences.secondsOf(u));
    console.log(`records ${records.us.toFixed(1)} µs a user (${records.each.toFixed(1)} preferences), keys alone ${keys.us.toFixed(1)} µs`);
  }
  process.exit(0);
})();
