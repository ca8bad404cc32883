import { parentPort, workerData } from 'node:worker_threads';
import { KeywordIndexes } from './service';
import { KEYWORD_WORKER_TAG, KeywordEnvelope, transferOf } from './protocol';

/**
 * The keyword indexes' own thread (a dedicated worker_threads Worker started by KeywordWorkerHost,
 * not a Piscina task: the indexes are state that must live in one thread). Requests are served in
 * arrival order, so a search sees every write sent before it.
 */
if (parentPort && (workerData as { tag?: string } | null)?.tag === KEYWORD_WORKER_TAG) {
  const port = parentPort;
  const indexes = new KeywordIndexes();
  port.on('message', (msg: KeywordEnvelope) => {
    const reply = indexes.reply(msg.id, msg.req);
    // A snapshot's bytes are handed over, not copied.
    port.postMessage(reply, reply.ok ? transferOf(reply.result) : []);
  });
}
