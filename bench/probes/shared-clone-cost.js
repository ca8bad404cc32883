// Session probe (issue 29, twelfth session): CPU of both threads a message posted to a worker and answered, with and
// without the shared objects a content query carries (the key's WebAssembly memory, the model's bytes, three term
// arrays), 8 messages in flight, 20,000 messages a variant.
//   node bench/probes/shared-clone-cost.js
const { Worker, isMainThread, parentPort } = require('worker_threads');
if (!isMainThread) {
  parentPort.on('message', (m) => parentPort.postMessage(m.i));
} else {
  const worker = new Worker(__filename);
  const memory = new WebAssembly.Memory({ initial: 100, maximum: 60000, shared: true });
  const model = new Uint8Array(new SharedArrayBuffer(50 << 20));
  const terms = Array.from({ length: 3 }, () => new SharedArrayBuffer(1 << 20, { maxByteLength: 1 << 30 }));
  const text = 'x'.repeat(1500);
  const variants = {
    'no shared objects': (i) => ({ i, store: 1, dim: 256, text, k: 10 }),
    'memory, model and terms': (i) => ({ i, store: 1, dim: 256, text, k: 10, memory, model, terms }),
  };
  (async () => {
    for (const round of [0, 1]) {
      for (const [name, make] of Object.entries(variants)) {
        const N = 20000;
        const t0 = process.cpuUsage();
        await new Promise((resolve) => {
          let inFlight = 0;
          let sent = 0;
          let got = 0;
          const pump = () => { while (inFlight < 8 && sent < N) { worker.postMessage(make(sent++)); inFlight++; } };
          worker.on('message', function on() {
            inFlight--;
            if (++got === N) { worker.off('message', on); resolve(); } else pump();
          });
          pump();
        });
        const cpu = process.cpuUsage(t0);
        if (round) console.log(`${name}: ${((cpu.user + cpu.system) / N).toFixed(1)} µs of CPU a message`);
      }
    }
    await worker.terminate();
  })();
}
