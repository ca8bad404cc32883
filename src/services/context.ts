import { EventEmitter } from 'node:events';
import type { TenantIndexes } from '../index/indexes';
import type { TenantStore } from '../storage';

export type ChangedEntity = 'document' | 'tag' | 'user' | 'tagging' | 'preference' | 'all';

/** One acknowledged write, told to in-process listeners (indexes, caches) after storage confirmed it. */
export interface Change {
  tenant: string;
  entity: ChangedEntity;
  op: 'put' | 'delete' | 'clear';
  /** The entity id; for pairs "first/second". */
  id: string;
}

export class ChangeBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(change: Change): void {
    this.emitter.emit('change', change);
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}

/** What every service call works on: one tenant's data and the bus its writes are told on. */
export interface TenantContext {
  readonly tenant: string;
  readonly store: TenantStore;
  readonly changes: ChangeBus;
  /** The key's in-memory indexes (built on first use). */
  indexes(): TenantIndexes;
}

export function publish(ctx: TenantContext, entity: ChangedEntity, op: Change['op'], id: string): void {
  ctx.changes.publish({ tenant: ctx.tenant, entity, op, id });
}
