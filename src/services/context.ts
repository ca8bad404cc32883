import type { TenantIndexes } from '../index/indexes';
import type { TenantStore } from '../storage';
import type { Change, ChangeBus, ChangedEntity } from '../storage/changes';

/** What every service call works on: one tenant's data and the bus its writes are told on. */
export interface TenantContext {
  readonly tenant: string;
  readonly store: TenantStore;
  readonly changes: ChangeBus;
  /** The key's in-memory indexes (built on first use). */
  indexes(): TenantIndexes;
}

export function publish(ctx: TenantContext, entity: ChangedEntity, op: Change['op'], id: string): Promise<void> {
  return ctx.changes.publish({ tenant: ctx.tenant, entity, op, id });
}
