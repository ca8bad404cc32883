import { Type } from 'typebox';
import { pagedReply, pageOf, paginationQuery } from '../../http/pagination';
import type { RequestContext, RouteDef } from '../../http/route';
import { ClusterService, MAX_CLUSTERS, MIN_CLUSTERS } from '../../services/clusters';
import type { Dialect } from './dialect';
import { ok, route } from './handlers';


export interface ClusterRoutesOptions {
  d: Dialect;
  /** Status of a successful delete: 200 in v3, 201 in v2. */
  deleteStatus: number;
}

/** Reading a model answers 201 in both versions, as the spec gives it. */
const READ_STATUS = 201;

const createBody = Type.Object({ number_clusters: Type.Integer({ minimum: MIN_CLUSTERS, maximum: MAX_CLUSTERS }) });

const modelId = (req: RequestContext) => ClusterService.modelId(req.params.id);
const clusterId = (req: RequestContext) => ClusterService.clusterId(req.params.cluster_id);

/** Cluster models (v2, v3): one table of rows shared by both versions; the dialect maps document ids. */
export function clusterRoutes(o: ClusterRoutesOptions): RouteDef[] {
  const { d } = o;
  return [
    route('POST', '/cluster-models', async (req) => {
      return ok(await req.tenant.clusters.create(req.body.number_clusters), 201);
    }, { body: createBody }),
    route('GET', '/cluster-models', async (req) => {
      const page = pageOf(req.query);
      const list = await req.tenant.clusters.list(page);
      return pagedReply(req, list.items, list.total, page);
    }, { query: Type.Object(paginationQuery) }),
    route('GET', '/cluster-models/:id', async (req) => ok(await req.tenant.clusters.get(modelId(req)), READ_STATUS)),
    route('DELETE', '/cluster-models/:id', async (req) => ok(await req.tenant.clusters.delete(modelId(req)), o.deleteStatus)),
    route('GET', '/cluster-models/:id/clusters', async (req) => ok(await req.tenant.clusters.clusters(modelId(req)))),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/documents', async (req) => {
      const ids = await req.tenant.clusters.documents(modelId(req), clusterId(req));
      // v2 shows integer ids and only documents with integer ids (those it can address).
      return ok(ids.filter((id) => d.visible(id)).map((id) => d.id(id)));
    }),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/words', async (req) =>
      ok(await req.tenant.clusters.words(modelId(req), clusterId(req)))),
    route('GET', '/cluster-models/:id/clusters/:cluster_id/word-cloud', async (req) => ({
      status: 200,
      body: await req.tenant.clusters.wordCloud(modelId(req), clusterId(req)),
      headers: { 'Content-Type': 'image/svg+xml; charset=utf-8' },
    })),
  ];
}
