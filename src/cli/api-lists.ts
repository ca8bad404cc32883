import { KindredClient, MAX_BATCH_OPS, MAX_PER_PAGE, messageOf, seg } from './http-client';

export interface ApiPreference {
  user_id: string;
  document_id: string;
}

/**
 * The preferences of the given users, one user's list at a time: the first pages of up to 100 users in one
 * `POST /batch`, then further pages for the users with more than 100. Users deleted meanwhile are passed over.
 */
export async function* preferencesOfUsers(client: KindredClient, userIds: string[]): AsyncGenerator<ApiPreference[]> {
  for (let i = 0; i < userIds.length; i += MAX_BATCH_OPS) {
    const ids = userIds.slice(i, i + MAX_BATCH_OPS);
    const results = await client.batch(ids.map((id) => ({ method: 'GET' as const, url: `/users/${seg(id)}/preferences?per_page=${MAX_PER_PAGE}` })));
    for (let j = 0; j < ids.length; j++) {
      const r = results[j];
      if (r.status === 404) continue;
      if (r.status !== 200) throw new Error(`preferences of user ${ids[j]}: ${messageOf(r)}`);
      const list = [...(r.body as ApiPreference[])];
      if (list.length === MAX_PER_PAGE) {
        let first = true;
        for await (const page of client.pages<ApiPreference>(`/users/${seg(ids[j])}/preferences`)) {
          if (!first) list.push(...page);
          first = false;
        }
      }
      yield list;
    }
  }
}

/** Every user id of the key. */
export async function allUserIds(client: KindredClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of client.pages<{ id: string }>('/users')) for (const u of page) ids.push(u.id);
  return ids;
}
