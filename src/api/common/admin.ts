import { Type } from 'typebox';
import { noContent, route, type RouteDef } from '../../http/route';

export const deleteAllDataRoute = (): RouteDef => route('DELETE', '/delete-all-data', async (req) => {
  await req.tenant.deleteAllData();
  return noContent;
}, { responses: { 204: Type.Null() } });
