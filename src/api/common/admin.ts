import type { RouteDef } from '../../http/route';
import { noContent, route } from './handlers';

export const deleteAllDataRoute = (): RouteDef => route('DELETE', '/delete-all-data', async (req) => {
  await req.tenant.deleteAllData();
  return noContent;
});
