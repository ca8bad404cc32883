import { Type } from 'typebox';
import { pagedReply, pageOf, paginationQuery } from '../../http/pagination';
import { ok, route, type RouteDef } from '../../http/route';
import { MAX_CLUSTERS, MIN_CLUSTERS } from '../../services/clusters';
import type { Dialect } from './dialect';
import { clusterDocuments, clusterModel, clusterNumbers, clusterWords, svg } from './responses';

export interface ClusterRoutesOptions {
  d: Dialect;
  /** Status of a successful delete: 200 in v3, 201 in v2. */
  deleteStatus: number;
}

/** Reading a model answers 201 in both versions, as the spec gives it. */
const READ_STATUS = 201;

const createBody = Type.Object({ number_clusters: Type.Integer({ minimum: MIN_CLUSTERS, maximum: MAX_CLUSTERS }) });

/** Model ids are positive integers in every version; clusters are numbered from 0. */
const modelId = Type.String({ pattern: '^[1-9][0-9]{0,15}$' });
const clusterId = Type.String({ pattern: '^(0|[1-9][0-9]{0,5})$' });
const modelParams = Type.Object({ id: modelId });
const clusterParams = Type.Object({ id: modelId, cluster_id: clusterId });

/** Cluster models (v2, v3): one table of rows shared by both versions; the dialect maps document ids. */
export function clusterRoutes(o: ClusterRoutesOptions): RouteDef[] {
  const { d } = o;
  return [
    route('POST', '/cluster-models', async (req) => ok(await req.tenant.clusters.create(req.body.number_clusters), 201), { body: createBody, responses: { 201: clusterModel } }),
    route('GET', '/cluster-models', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.clusters.list(page);
      return pagedReply(req, list.items, list.total, page);
    }, { query: Type.Object(paginationQuery), responses: { 200: Type.Array(clusterModel) } }),
    route('GET', '/cluster-models/:id', async (req) => ok(await req.tenant.clusters.get(Number(req.params.id)), READ_STATUS), { params: modelParams, responses: { [READ_STATUS]: clusterModel } }),
    route('DELETE', '/cluster-models/:id', async (req) => ok(await req.tenant.clusters.delete(Number(req.params.id)), o.deleteStatus), { params: modelParams, responses: { [o.deleteStatus]: clusterModel } }),
    route('GET', '/cluster-models/:id/clusters', async (req) => ok(await req.tenant.clusters.clusters(Number(req.params.id))), { params: modelParams, responses: { 200: clusterNumbers } }),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/documents', async (req) => {
      const ids = await req.tenant.clusters.documents(Number(req.params.id), Number(req.params.cluster_id), d.scope);
      return ok(ids.map((id) => d.id(id)));
    }, { params: clusterParams, responses: { 200: clusterDocuments(d) } }),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/words', async (req) =>
      ok(await req.tenant.clusters.words(Number(req.params.id), Number(req.params.cluster_id))), { params: clusterParams, responses: { 200: clusterWords } }),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/word-cloud', async (req) => ({
      status: 200,
      body: await req.tenant.clusters.wordCloud(Number(req.params.id), Number(req.params.cluster_id)),
      headers: { 'Content-Type': 'image/svg+xml; charset=utf-8' },
    }), { params: clusterParams, responses: { 200: svg } }),
  ];
}
