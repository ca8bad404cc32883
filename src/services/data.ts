import { publish, type TenantContext } from './context';

/** Namespaces of per-tenant values that hold derived or trained state (models, clusters, caches). */
const VALUE_NAMESPACES = ['models', 'clusters', 'jobs', 'parser-cache', 'index'];

/** Removes everything one key owns; other keys are untouched. */
export async function deleteAllData(ctx: TenantContext): Promise<void> {
  const { store } = ctx;
  await store.preferences.clear();
  await store.taggings.clear();
  await store.documents.clear();
  await store.tags.clear();
  await store.users.clear();
  for (const namespace of VALUE_NAMESPACES) await store.values(namespace).clear();
  await publish(ctx, 'all', 'clear', '*');
}
