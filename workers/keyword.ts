import { parentPort, workerData } from 'node:worker_threads';
import { KeywordIndexes } from '../src/index/keyword/service';
import { KEYWORD_WORKER_TAG, KeywordEnvelope, transferOf } from '../src/index/keyword/protocol';

/**
 * The keyword index's own thread (a dedicated worker_threads Worker started by KeywordWorkerHost,
 * not a Piscina task: the index is state that must live in one thread). Requests are served in
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

/** Piscina's task-module convention asks for a default export; this module is not a pool task. */
export default function keywordWorkerIsDedicated(): never {
  throw new Error('workers/keyword is a dedicated worker: use KeywordWorkerHost');
}
