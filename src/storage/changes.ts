import { EventEmitter } from 'node:events';

export type ChangedEntity = 'document' | 'tag' | 'user' | 'tagging' | 'preference' | 'all';

/** One acknowledged write, told to in-process listeners (indexes, caches) after storage confirmed it. */
export interface Change {
  tenant: string;
  entity: ChangedEntity;
  op: 'put' | 'delete' | 'clear';
  /** The entity id; for pairs "first/second". */
  id: string;
  /** Made by another process sharing the database (learnt from the change log). */
  remote?: boolean;
}

/** Hands a local change on to other processes; resolves once they can learn of it. */
export type ChangeRelay = (change: Change) => Promise<void>;

export class ChangeBus {
  private readonly emitter = new EventEmitter();
  private relay?: ChangeRelay;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Every change published from now on is also handed to `relay` (the shared change log). */
  relayTo(relay: ChangeRelay): void {
    this.relay = relay;
  }

  /** Tells local listeners now; resolves once the change is relayed to other processes too. */
  async publish(change: Change): Promise<void> {
    this.emitter.emit('change', change);
    if (this.relay) await this.relay(change);
  }

  /** A change another process made: told to this process's listeners only. */
  receive(change: Change): void {
    this.emitter.emit('change', { ...change, remote: true });
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
